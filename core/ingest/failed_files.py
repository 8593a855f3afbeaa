"""A file that failed or was cancelled: its row marked, its points and parsed text gone, and its
uploaded original kept only while Retry may still send it.

Shared by the single-file paths (service.py), the batched ingest (batch.py) and recovery, so
none of them imports another for it.
"""

from __future__ import annotations

from sqlmodel import select

from core.db.models import FileRecord, Job, utcnow
from core.ingest.parts import EngineParts
from core.ingest.uploads import IngestResult, Upload
from core.types import Actor


def failed_before_start(parts: EngineParts, actor: Actor, upload: Upload, error: str, *,
                         kb_id: str | None, chat_id: str | None, key: str = "", params: dict | None = None,
                         size: int = 0) -> IngestResult:
    """A URL that could not be fetched, a file refused before it was read: listed as failed with
    its reason (and the size it came with), nothing stored."""
    with parts.db.write() as s:
        record = FileRecord(sha256="", name=upload.name, owner_id=actor.user_id, kb_id=kb_id, chat_id=chat_id,
                            size=size, status="failed", error=error, error_key=key or None,
                            error_params=params or None, meta={"url": upload.url or ""})
        s.add(record)
    return IngestResult(upload.name, "failed", file_id=record.id, error=error, error_key=key, error_params=dict(params or {}))


# A failed or cancelled knowledge-base file keeps its original, so Retry can send it again; the
# doctor lists these (healthy), and deleting the failed file removes the original.
RETRY_STATES = ("failed", "cancelled")


def abandon_file(parts: EngineParts, file_id: str, collection: str, state: str, error: str,
                 key: str = "", params: dict | None = None, sha: str = "") -> None:
    """Mark a file failed or cancelled: its points and parsed text go; a knowledge-base file's
    original stays for Retry (a chat attachment's goes: the chat attaches it again). A file
    deleted while it was processing has no row left: what its ingest wrote goes all the same
    (``sha``: the original that ingest stored)."""
    if parts.store.collection_exists(collection):
        parts.store.delete_file(collection, file_id)
    parts.blobs.delete_parsed(file_id)
    with parts.db.write() as s:
        rec = s.get(FileRecord, file_id)
        if rec is not None:
            rec.status, rec.error, rec.chunk_count, rec.updated_at = state, error, 0, utcnow()
            rec.error_key, rec.error_params = key or None, params or None
            sha = rec.sha256
            s.add(rec)
    drop_unused_original(parts, sha)


def drop_unused_original(parts: EngineParts, sha: str) -> None:
    """Delete an uploaded original that no file uses any more: none indexed or in progress, and
    no failed or cancelled knowledge-base file that Retry may send again."""
    if not sha:
        return
    with parts.db.read() as s:
        used = s.exec(select(FileRecord.id).where(
            FileRecord.sha256 == sha,
            FileRecord.status.in_(["indexed", "processing", "pending"])
            | (FileRecord.status.in_(list(RETRY_STATES)) & FileRecord.kb_id.is_not(None)))).first()
        # an upload waiting in the queue (or being worked on) names its original too
        waiting = s.exec(select(Job.id).where(Job.blob == sha, Job.state.in_(["staged", "queued", "running"]))).first()
    if used is None and waiting is None:
        parts.blobs.delete_blob(sha)
