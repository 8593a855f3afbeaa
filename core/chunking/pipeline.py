"""The chunking pipeline: clean -> heading glue -> Markdown header split -> size split (tables
repeat their header) -> merge."""

from __future__ import annotations

from collections.abc import Callable

from core.chunking.clean import clean_text
from core.chunking.heading_glue import glue_headings, is_heading_block
from core.chunking.locate import PART_SEPARATOR, PartLocator
from core.chunking.markdown_split import Section, split_markdown
from core.chunking.merge import Piece, merge_small_pieces
from core.chunking.tables import split_with_headers
from core.errors import InvalidSettings
from core.settings.model import ChunkingSettings
from core.types import Chunk, DocPart, ParsedDoc


def cleaned_text(doc: ParsedDoc) -> str:
    """The document text after cleaning, parts joined as the chunker joins them."""
    return PART_SEPARATOR.join(t for t in (clean_text(p.text) for p in doc.parts) if t.strip())


class TooManyChunks(Exception):
    """The document would make more than ``cap`` chunks: at least ``at_least``, known before splitting."""

    def __init__(self, at_least: int, cap: int):
        super().__init__(f"at least {at_least} chunks, more than {cap}")
        self.at_least, self.cap = at_least, cap


def fewest_chunks(text: str, cfg: ChunkingSettings) -> int:
    """A lower bound on the chunks ``text`` makes, in characters: every non-space character lands in
    some chunk and a chunk holds at most ``chunk_size`` characters (merging never passes it)."""
    return -(-len("".join(text.split())) // cfg.chunk_size)


def chunk_document(doc: ParsedDoc, cfg: ChunkingSettings, count: Callable[[str], int] = len,
                   max_chunks: int | None = None) -> list[Chunk]:
    """Chunks of one document, indexed from 0, each measuring at most ``cfg.chunk_size``.

    ``count`` measures a text: ``len`` for characters, or the embedding model's token
    counter when ``cfg.size_unit == "tokens"``. ``max_chunks``: raise TooManyChunks before any
    splitting when the text cannot fit in that many (splitting one long paragraph costs seconds a MB).
    """
    if cfg.size_unit == "tokens" and count is len:
        raise InvalidSettings(
            "chunk sizes are set in tokens: pass the embedding model's token counter, not len"
        )
    cleaned = [clean_text(p.text) for p in doc.parts]
    text = PART_SEPARATOR.join(t for t in cleaned if t.strip())
    if max_chunks is not None and count is len:
        fewest = fewest_chunks(text, cfg)
        if fewest > max_chunks:
            raise TooManyChunks(fewest, max_chunks)
    locator = PartLocator(doc.parts, cleaned)
    if cfg.heading_glue:
        text = glue_headings(text)
    sections = split_markdown(text) if cfg.markdown_header_split else [Section(0, len(text), ())]
    sticky = is_heading_block if cfg.heading_glue else (lambda _: False)

    pieces: list[Piece] = []
    for section in sections:
        body = text[section.start : section.end]
        for start, end, prefix in split_with_headers(body, cfg.chunk_size, cfg.chunk_overlap, count, sticky):
            pieces.append(Piece(prefix + body[start:end], doc.source_name, section.start + start,
                                end=section.start + end, heading_path=section.heading_path, header_chars=len(prefix)))
    pieces = merge_small_pieces(pieces, cfg.chunk_min_size_target, cfg.chunk_size, count)

    parts = locator.parts_at(text, [p.start for p in pieces])
    # where each chunk's last character is: a chunk may run from one page onto the next
    last_parts = locator.parts_at(text, [_last_char(text, p) for p in pieces])
    chunks: list[Chunk] = []
    for index, (piece, part, last) in enumerate(zip(pieces, parts, last_parts)):
        chunks.append(
            Chunk(
                text=piece.text,
                index=index,
                source_name=doc.source_name,
                heading_path=piece.heading_path or (part.heading_path if part else ()),
                page=part.page if part else None,
                page_end=_later_page(part, last),
                slide=part.slide if part else None,
                start_seconds=part.start_seconds if part else None,
                merged_count=piece.merged_count,
                header_chars=piece.header_chars,
            )
        )
    return chunks


def _last_char(text: str, piece: Piece) -> int:
    """The offset of the piece's last non-space character in the document text."""
    end = piece.end or piece.start + len(piece.text)
    return piece.start + max(0, len(text[piece.start:end].rstrip()) - 1)


def _later_page(first: DocPart | None, last: DocPart | None) -> int | None:
    """The page a chunk ends on when it is not the one it starts on (None otherwise)."""
    if first is None or last is None or first.page is None or last.page is None:
        return None
    return last.page if last.page > first.page else None
