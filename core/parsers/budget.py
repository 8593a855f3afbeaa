"""How much a file may yield, checked while it is read, so an oversized file is refused in seconds.

A file is worth reading as far as its text can be indexed: past ``parsing.max_chunks_per_file``
chunks of the chunk size, ingestion refuses it anyway. So the text budget is that many chunks,
doubled (cleaning drops markup the parsers count, and a file is never refused here that the
chunk cap would take), counted in non-space characters (whitespace is collapsed by cleaning).
Office XML also gets an element budget: python-docx and python-pptx hold every element in
memory (about 250 bytes each, measured), whatever the text.
"""

from __future__ import annotations

import zipfile
import zlib

from core.errors import FileTooLarge, ParseError
from core.parsers.base import ParseContext
from core.settings.model import ChunkingSettings

SLACK = 2
CHARS_PER_TOKEN = 8  # generous: a token of the bundled models covers 1-5 characters
# XML elements one Office file may hold: ~1 GB once loaded by python-docx/python-pptx
MAX_XML_ELEMENTS = 4_000_000
# Whitespace in the XML is not text (the budget above does not count it) but is loaded all the
# same: 450 MB of it between paragraphs took python-docx to 1.5 GB. Word and PowerPoint write
# none between elements; the spaces inside a text run of a document at the text budget stay far below.
MAX_BLANK_XML = 64 << 20
_BLANK = b" \t\r\n"
# ...and at least this many whatever the text budget (styles, themes and tables carry no text)
MIN_XML_ELEMENTS = 250_000
XML_ELEMENTS_PER_CHAR = 4  # heavily formatted text: a run (5-8 elements) every few characters


def text_limit(ctx: ParseContext) -> int:
    """Non-space characters a file may yield before it is refused."""
    chunking = ctx.chunking or ChunkingSettings()
    per_unit = CHARS_PER_TOKEN if chunking.size_unit == "tokens" else 1
    return SLACK * ctx.settings.max_chunks_per_file * chunking.chunk_size * per_unit


def xml_element_limit(ctx: ParseContext) -> int:
    return min(MAX_XML_ELEMENTS, MIN_XML_ELEMENTS + XML_ELEMENTS_PER_CHAR * text_limit(ctx))


def non_space_chars(text: str) -> int:
    return len("".join(text.split()))  # C-speed, even for one enormous text node


class TextBudget:
    """A running count of the text read from one file; ``add`` raises once it is over."""

    def __init__(self, ctx: ParseContext, source_name: str) -> None:
        self.limit = text_limit(ctx)
        self.used = 0
        self._ctx = ctx
        self._source_name = source_name

    def add(self, text: str) -> None:
        if text:
            self.used += non_space_chars(text)
            if self.used > self.limit:
                raise self.refusal()

    def refusal(self) -> FileTooLarge:
        chunking = self._ctx.chunking or ChunkingSettings()
        cap = self._ctx.settings.max_chunks_per_file
        return FileTooLarge(
            f"{self._source_name} holds more than {self.limit:,} characters of text, more than "
            f"{cap} chunks of {chunking.chunk_size} {chunking.size_unit} could index (setting "
            "parsing.max_chunks_per_file): split the file, use larger chunks, or raise the limit")


_TEXT_TAGS = (
    "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}t",  # Word runs
    "{http://schemas.openxmlformats.org/drawingml/2006/main}t",  # PowerPoint and drawings
)
_SCAN_BLOCK = 1 << 20


def _count_elements(archive: zipfile.ZipFile, info: zipfile.ZipInfo, counted: int, limit: int,
                    blank: int = 0, blank_limit: int = MAX_BLANK_XML) -> tuple[int, int]:
    """``counted`` plus the elements of one member, from its start tags in the raw bytes (comments,
    CDATA and a tag cut between blocks can only count too many), and ``blank`` plus its whitespace
    bytes; stops once either is past its limit."""
    with archive.open(info) as stream:
        while counted <= limit and blank <= blank_limit and (block := stream.read(_SCAN_BLOCK)):
            counted += block.count(b"<") - block.count(b"</") - block.count(b"<?") - block.count(b"<!")
            blank += len(block) - len(block.translate(None, _BLANK))
    return counted, blank


def _count_text(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: TextBudget) -> None:
    from lxml import etree

    with archive.open(info) as stream:
        # the same parser options the readers use: deep nesting allowed, no entities, no network
        events = etree.iterparse(stream, events=("end",), tag=_TEXT_TAGS, huge_tree=True, resolve_entities=False,
                                 no_network=True)
        for seen, (_, element) in enumerate(events, start=1):
            budget.add(element.text or "")
            if seen % 1024 == 0:  # now and then, drop what is finished: memory stays flat
                for node in (element, *element.iterancestors()):
                    parent = node.getparent()
                    while parent is not None and node.getprevious() is not None:
                        del parent[0]


def scan_office_xml(archive: zipfile.ZipFile, kind: str, source_name: str, ctx: ParseContext) -> None:
    """Read every XML part of a Word or PowerPoint file before python-docx/python-pptx load them
    whole: their elements (counted in the raw bytes, memory-speed) and then their text (lxml,
    only at text elements) against the budgets; raises FileTooLarge as soon as one is over."""
    from lxml import etree

    parts = [info for info in archive.infolist() if info.filename.endswith((".xml", ".rels"))]
    element_limit = xml_element_limit(ctx)
    blank_limit = max(MAX_BLANK_XML, text_limit(ctx))  # an admin who raised the chunk cap raised this too
    budget = TextBudget(ctx, source_name)
    elements = blank = 0
    try:
        for info in parts:
            elements, blank = _count_elements(archive, info, elements, element_limit, blank, blank_limit)
            if elements > element_limit:
                raise FileTooLarge(f"{source_name} holds more than {element_limit:,} XML elements, more than one "
                                   f"{kind} file may hold in memory while it is read: split the file")
            if blank > blank_limit:
                raise FileTooLarge(f"{source_name} holds more than {blank_limit >> 20} MB of blank space in its "
                                   f"XML (no {kind} program writes that much; loading it would take gigabytes): "
                                   "save it again from its program")
        for info in parts:
            try:
                _count_text(archive, info, budget)
            except etree.XMLSyntaxError:
                continue  # what was read of it counts; whether the part matters is the reader's call
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise ParseError(f"corrupt {kind} file (an archive member cannot be read)", detail=str(exc)) from exc
