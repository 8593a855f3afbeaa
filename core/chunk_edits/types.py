"""What the chunk-editing operations return (the same models on every surface: Python, the CLI
hand-off, the HTTP API)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

# Chunks added by hand are numbered from here, after any chunk a file can make (the limit per file,
# parsing.max_chunks_per_file, is far below), so a reindex that makes more chunks never takes their place.
ADDED_BASE = 1_000_000


class ChunkView(BaseModel):
    """One chunk of a file as it stands: the file's own, edited, added by hand, or disabled."""

    model_config = ConfigDict(from_attributes=True)

    chunk_index: int
    chunk_id: str  # the point's id in the vector store
    text: str
    keywords: list[str] = []
    state: str = "original"  # original | edited | added
    disabled: bool = False
    heading_path: list[str] = []
    page: int | None = None
    original_text: str | None = None  # the file's own passage, when the text was edited
    updated_by: str = ""
    updated_at: datetime | None = None


class ChunkListing(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    file_id: str
    file_name: str
    status: str
    chunks: list[ChunkView]
    # edits dropped at a reindex because their passage is no longer in the file ("" none)
    notice: str = ""


class ChunkHistoryEntry(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    chunk_index: int
    action: str  # edit | disable | enable | add | dropped
    actor_name: str
    actor_id: str
    at: datetime
    before: dict | None = None
    after: dict | None = None
    note: str = ""
