"""An edited or added chunk as a point of the vector store: embedded like every chunk (its context
line, then its text), its keywords added to what BM25 sees only, and token vectors (late
interaction) when the collection holds them — so the dense, lexical and late-interaction channels
all see the new text at once."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.chunking.context import context_line
from core.embeddings.base import Embedder, token_encoder
from core.ingest.pipeline import point_id
from core.retrieval import bm25
from core.retrieval.late import passage_tokens
from core.types import Chunk, VectorPoint
from core.vectorstore.base import NOT_READY, READY, READY_KEY, VectorStore

# Payload keys a chunk edit sets: what it is (edited | added) and its keywords.
EDITED_KEY = "edited"
KEYWORDS_KEY = "keywords"
# Keys that describe one state of a point, not the chunk's place in its file: not kept as its base.
_STATE_KEYS = ("text", "chunk_index", READY_KEY, EDITED_KEY, KEYWORDS_KEY)


@dataclass
class ChunkWrite:
    """One chunk to (re)write: its index in the file, text, keywords and the rest of its payload."""

    index: int
    text: str
    keywords: list[str] = field(default_factory=list)
    base: dict = field(default_factory=dict)  # file_id, kb_id, heading_path, page... (base_payload)
    state: str = "edited"  # edited | added


def base_payload(payload: dict) -> dict:
    """What a point says about where its chunk stands (its state keys left out)."""
    return {k: v for k, v in payload.items() if k not in _STATE_KEYS}


def lexical_text(indexed: str, keywords: list[str]) -> str:
    """BM25 sees the keywords after the text; the dense vector and the answer never do."""
    return indexed + ("\n" + " ".join(keywords) if keywords else "")


def write_chunks(store: VectorStore, embedder: Embedder, collection: str, file_id: str, writes: list[ChunkWrite],
                 *, title: str | None, contextual: bool, ready: bool) -> None:
    """Embed these chunks and upsert them over their points (same ids: the old version is replaced)."""
    if not writes:
        return
    indexed = []
    for w in writes:
        chunk = Chunk(text=w.text, index=w.index, source_name=str(w.base.get("source_name", "")),
                      heading_path=tuple(w.base.get("heading_path") or ()))
        line = context_line(chunk, title) if contextual else ""
        indexed.append(f"{line}\n{w.text}" if line else w.text)
    encoder = token_encoder(embedder)
    size = store.token_dimension(collection)
    tokens: list = [None] * len(writes)
    if encoder is not None and size and size == encoder.token_dimension:
        vectors, states = encoder.embed_documents_with_tokens(indexed)
        tokens = [passage_tokens(s) for s in states]
    else:
        vectors = embedder.embed_documents(indexed)
    points = [
        VectorPoint(id=point_id(file_id, w.index), dense=[float(x) for x in vec],
                    sparse=bm25.encode_document(lexical_text(text, w.keywords)),
                    payload={**w.base, "file_id": file_id, "chunk_index": w.index, "text": w.text,
                             EDITED_KEY: w.state, KEYWORDS_KEY: list(w.keywords),
                             READY_KEY: READY if ready else NOT_READY},
                    tokens=tok)
        for w, text, vec, tok in zip(writes, indexed, vectors, tokens)]
    store.upsert(collection, points)
