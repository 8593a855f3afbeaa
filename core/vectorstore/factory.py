"""Pick the vector store engine: a Qdrant server when a URL is configured, else the embedded one."""

from __future__ import annotations

from pathlib import Path

from core.vectorstore.base import VectorStore


def open_store(
    data_dir: Path, qdrant_url: str | None, qdrant_api_key: str | None, wait_seconds: float = 0.0
) -> VectorStore:
    """The configured store. Never falls back: a bad server URL is an error, not a silent edge store.

    ``wait_seconds`` only applies to the embedded store: how long to wait for another process
    holding it before raising ``StoreBusy``.
    """
    if qdrant_url:
        from core.vectorstore.server import QdrantServerStore

        return QdrantServerStore(url=qdrant_url, api_key=qdrant_api_key)
    from core.vectorstore.edge import EdgeStore

    return EdgeStore(Path(data_dir) / "vectors", wait_seconds=wait_seconds)
