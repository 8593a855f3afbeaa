"""parse → clean → chunk → embed (batched) → store, for one document.

Pure steps with typed inputs; the service around it owns records, jobs and permissions.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Callable

from core.chunking import chunk_document
from core.embeddings.base import Embedder
from core.errors import Cancelled, EmbeddingError
from core.retrieval import bm25
from core.settings.model import ChunkingSettings
from core.types import Chunk, ParsedDoc, VectorPoint
from core.vectorstore.base import VectorStore

_POINT_NAMESPACE = uuid.UUID("6f1c1f7e-3c1a-4c59-9a43-5b0e2a7e1d11")

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class FileTarget:
    """Where a file's chunks go and what their payload says about it."""

    file_id: str
    collection: str
    kb_id: str | None = None
    chat_id: str | None = None


def point_id(file_id: str, chunk_index: int) -> str:
    # Deterministic: re-running a file overwrites its own points instead of adding new ones.
    return str(uuid.uuid5(_POINT_NAMESPACE, f"{file_id}:{chunk_index}"))


def make_chunks(doc: ParsedDoc, cfg: ChunkingSettings, embedder: Embedder) -> list[Chunk]:
    count = embedder.count_tokens if cfg.size_unit == "tokens" else len
    return chunk_document(doc, cfg, count)


def chunk_payload(chunk: Chunk, target: FileTarget) -> dict:
    payload = {
        "file_id": target.file_id,
        # The store indexes kb_id and requires it; a chat's files are marked with their chat.
        "kb_id": target.kb_id or (f"chat:{target.chat_id}" if target.chat_id else ""),
        "chat_id": target.chat_id or "",
        "chunk_index": chunk.index,
        "text": chunk.text,
        "heading_path": list(chunk.heading_path),
        "source_name": chunk.source_name,
        "merged_count": chunk.merged_count,
    }
    for key in ("page", "slide", "start_seconds"):
        value = getattr(chunk, key)
        if value is not None:
            payload[key] = value
    return payload


def embed_and_store(
    chunks: list[Chunk],
    target: FileTarget,
    embedder: Embedder,
    store: VectorStore,
    *,
    batch_size: int,
    progress: Progress,
    should_cancel: Callable[[], bool],
) -> None:
    """Embed chunks in batches and upsert them; checks for cancel between batches."""
    total = len(chunks)
    progress(0, total, "embedding")
    for start in range(0, total, batch_size):
        if should_cancel():
            raise Cancelled("cancelled by request")
        batch = chunks[start : start + batch_size]
        vectors = embedder.embed_documents([c.text for c in batch])
        if len(vectors) != len(batch):
            raise EmbeddingError(f"the embedder returned {len(vectors)} vectors for {len(batch)} texts")
        points = [
            VectorPoint(
                id=point_id(target.file_id, c.index),
                dense=[float(x) for x in vec],
                sparse=bm25.encode_document(c.text),
                payload=chunk_payload(c, target),
            )
            for c, vec in zip(batch, vectors)
        ]
        store.upsert(target.collection, points)
        progress(min(start + len(batch), total), total, "embedding")
