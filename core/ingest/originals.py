"""A file's original bytes (download) and a fresh attempt at a file that failed (retry)."""

from __future__ import annotations

from core.accounts.access import check_file
from core.db.models import FileRecord
from core.errors import InvalidInput, NotFound
from core.ingest.parts import EngineParts
from core.ingest.uploads import Upload
from core.types import Actor


def original(parts: EngineParts, actor: Actor, file_id: str) -> tuple[str, bytes]:
    """(file name, bytes as uploaded); a web page's stored form is its extracted text."""
    with parts.db.read() as s:
        rec = check_file(s, actor, s.get(FileRecord, file_id), file_id)
    if not rec.sha256 or not parts.blobs.has(rec.sha256):
        raise NotFound(f"the original of '{rec.name}' is not stored")
    return rec.name, parts.blobs.get(rec.sha256)


def retry_upload(parts: EngineParts, actor: Actor, file_id: str) -> tuple[str, Upload]:
    """(knowledge base id, the upload to send again) for a failed or cancelled file."""
    with parts.db.read() as s:
        rec = check_file(s, actor, s.get(FileRecord, file_id), file_id, write=True)
    if rec.status not in ("failed", "cancelled"):
        raise InvalidInput(f"'{rec.name}' is {rec.status}: only a failed or cancelled file can be retried")
    if not rec.kb_id:
        raise InvalidInput(f"'{rec.name}' is attached to a chat: attach it again there")
    if rec.sha256 and parts.blobs.has(rec.sha256):
        return rec.kb_id, Upload(rec.name, parts.blobs.get(rec.sha256))
    if rec.name.startswith(("http://", "https://")):
        return rec.kb_id, Upload.from_url(rec.name)  # fetched again, through the URL guard
    raise NotFound(f"the original of '{rec.name}' is not stored: upload it again")
