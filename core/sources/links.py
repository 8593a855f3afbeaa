"""Citations of a synced file link back to where it lives (a Drive file's webViewLink, a page's URL)."""

from __future__ import annotations

from sqlmodel import select

from core.db.database import Database
from core.db.models import FileRecord


def link_citations(db: Database, citations: list) -> None:
    """Fill ``url`` on citations whose file came from a source (a link kept in the file's metadata)."""
    ids = {c.file_id for c in citations if c.file_id and not getattr(c, "url", "")}
    if not ids:
        return
    with db.read() as s:
        links = {f.id: (f.meta or {}).get("source_url") or (f.meta or {}).get("url", "")
                 for f in s.exec(select(FileRecord).where(FileRecord.id.in_(ids)))}
    for c in citations:
        if links.get(c.file_id):
            c.url = links[c.file_id]
