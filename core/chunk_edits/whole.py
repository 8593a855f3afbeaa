"""A whole file's text as its chunks now stand, for what reads files whole ("Using Entire Document"
knowledge bases, the file viewer tool): a file with hand edits is told from its indexed chunks in
order — edited texts in, added chunks at the end, disabled ones out — so a disabled passage is not
brought back through the whole file. A file without edits keeps its parsed text as it is."""

from __future__ import annotations

from sqlmodel import select

from core.chunk_edits.models import ChunkEdit
from core.db.database import Database
from core.vectorstore.base import VectorStore


def edited_file_ids(db: Database, file_ids: list[str]) -> set[str]:
    if not file_ids:
        return set()
    with db.read() as s:
        return set(s.exec(select(ChunkEdit.file_id).where(ChunkEdit.file_id.in_(list(file_ids)))).all())


def _joined(texts: list[str]) -> str:
    """Consecutive chunks share their overlap: each is added without the start the text already ends with."""
    out = ""
    for text in texts:
        shared = next((k for k in range(min(len(out), len(text)), 0, -1) if out.endswith(text[:k])), 0)
        # an overlap of a few characters may be chance: only a long one is taken as shared
        out = out + text[shared:] if shared >= 20 else (out + "\n\n" + text if out else text)
    return out


def file_text(store: VectorStore, collection: str, file_id: str, parsed: str) -> str:
    if not collection or not store.collection_exists(collection):
        return parsed
    return _joined([str(p.payload.get("text", "")) for p in store.scroll_file(collection, file_id)])
