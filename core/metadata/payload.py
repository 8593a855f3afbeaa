"""A file's metadata as the payload of its chunks: the automatic values (what its source knows)
and the values set on it, written as one ``meta`` object on every point of the file — on ingest
and reindex just before its points become visible, and again whenever a value or a field changes.
No vector is touched: a changed value costs one payload update per collection, not an embedding.

Automatic values, from the file's record: ``file_name`` (the name's last part), ``folder`` (the
part before it, when the name carries a path, or what the source recorded), ``title`` (the
document's own title: an HTML page's <title>, a PDF's or a slide deck's title), ``modified``
(the source's modified time where it knows one — Google Drive, a folder, WebDAV, DingTalk — else
when the file was added),
``owner`` (the source's owner of the file — Google Drive — when it names one). A synced source
records its item's metadata after the file is indexed, so the sync writes the payload again then.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timezone
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from sqlmodel import Session, select

from core.db.database import Database
from core.db.models import FileRecord
from core.errors import CoreError, InvalidInput
from core.metadata.conditions import INDEX_OF, MetaCondition, payload_path
from core.metadata.fields import AUTO_FIELDS, FieldDef, parse_moment, rfc3339, user_key
from core.metadata.models import FileMetadataValue, MetadataField
from core.vectorstore.base import VectorStore, kb_collection_prefix

log = logging.getLogger(__name__)
_IDS_PER_QUERY = 500


def auto_values(rec: FileRecord) -> dict[str, object]:
    meta = rec.meta or {}
    out: dict[str, object] = {}
    name = (rec.name or "").replace("\\", "/")
    if name.startswith(("http://", "https://")):
        parts = urlsplit(name)
        path = PurePosixPath(parts.path or "/")
        out["file_name"] = path.name or parts.netloc
        if str(path.parent) not in ("/", "."):
            out["folder"] = f"{parts.netloc}{path.parent}"
    else:
        path = PurePosixPath(name)
        out["file_name"] = path.name or name
        if str(path.parent) not in ("", "."):
            out["folder"] = str(path.parent)
    if isinstance(meta.get("folder"), str) and meta["folder"]:
        out["folder"] = meta["folder"]
    if isinstance(meta.get("owner"), str) and meta["owner"].strip():  # a synced source's owner (Drive)
        out["owner"] = meta["owner"].strip()[:500]
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        out["title"] = meta["title"].strip()[:500]
    modified = rec.created_at.replace(tzinfo=rec.created_at.tzinfo or timezone.utc)
    if meta.get("modified_time"):
        try:
            modified = parse_moment(meta["modified_time"], "modified")[0]
        except InvalidInput:
            pass  # an unreadable time from a source: the time it was added stands
    out["modified"] = rfc3339(modified)
    return {k: v for k, v in out.items() if v}


def user_fields(session: Session, kb_ids: list[str]) -> dict[str, list[FieldDef]]:
    """Each knowledge base's own fields (without the automatic ones)."""
    out: dict[str, list[FieldDef]] = {k: [] for k in kb_ids}
    if kb_ids:
        for f in session.exec(select(MetadataField).where(MetadataField.kb_id.in_(kb_ids)).order_by(MetadataField.name)):
            out.setdefault(f.kb_id, []).append(FieldDef(f.name, f.kind, user_key(f.id), id=f.id))  # type: ignore[arg-type]
    return out


def all_fields(session: Session, kb_id: str) -> list[FieldDef]:
    return list(AUTO_FIELDS) + user_fields(session, [kb_id])[kb_id]


def indexes(fields: list[FieldDef]) -> dict[str, str]:
    """The payload index (path -> kind) of each field."""
    return {payload_path(f.key): INDEX_OF[f.kind] for f in fields}


def values_of(session: Session, recs: list[FileRecord]) -> dict[str, dict[str, object]]:
    """Every file's payload ``meta`` object (key -> stored value)."""
    out = {r.id: auto_values(r) for r in recs}
    ids = list(out)
    for start in range(0, len(ids), _IDS_PER_QUERY):
        rows = session.exec(select(FileMetadataValue).where(FileMetadataValue.file_id.in_(ids[start:start + _IDS_PER_QUERY])))
        for row in rows:
            out[row.file_id][user_key(row.field_id)] = (row.value or {}).get("v")
    return out


def write(store: VectorStore, db: Database, file_ids: list[str], collections: list[str] | None = None) -> None:
    """Write these knowledge-base files' metadata to their points: in ``collections`` when given,
    else in every index of their knowledge base (the serving one and an unfinished reindex)."""
    if not file_ids:
        return
    with db.read() as s:
        recs = [r for r in _records(s, file_ids) if r.kb_id]
        if not recs:
            return
        values = values_of(s, recs)
        kb_ids = sorted({r.kb_id for r in recs if r.kb_id})
        fields = user_fields(s, kb_ids)
    existing = None if collections is not None else store.list_collections()
    for kb_id in kb_ids:
        mine = {r.id: values[r.id] for r in recs if r.kb_id == kb_id}
        wanted = indexes(list(AUTO_FIELDS) + fields.get(kb_id, []))
        prefix = kb_collection_prefix(kb_id)
        names = collections if collections is not None else [c for c in existing or [] if c.startswith(prefix)]
        for name in names:
            if name.startswith(prefix):
                store.set_file_metadata(name, mine, wanted)


def write_published(store: VectorStore, db: Database, files: dict[str, list[str]]) -> None:
    """Ingest and reindex, just before files' points become visible ({collection: file ids}). A
    failure is logged, not raised: the file is still indexed; until its metadata is written
    again (any value set on it) no filter matches it — a filter only ever leaves it out."""
    for collection, file_ids in files.items():
        try:
            write(store, db, list(file_ids), [collection])
        except CoreError as exc:
            log.warning("could not write the metadata of %d file(s) in %s: %s", len(file_ids), collection, exc.message)


def refresh(store: VectorStore, db: Database, file_ids: list[str]) -> None:
    """``write`` where a failure must not fail the caller's work (a sync that recorded a file's
    source metadata): logged; the file keeps its earlier payload until its next write."""
    try:
        write(store, db, file_ids)
    except CoreError as exc:
        log.warning("could not rewrite the metadata of %d file(s): %s", len(file_ids), exc.message)


def _records(session: Session, file_ids: list[str]) -> list[FileRecord]:
    out: list[FileRecord] = []
    for start in range(0, len(file_ids), _IDS_PER_QUERY):
        out.extend(session.exec(select(FileRecord).where(FileRecord.id.in_(file_ids[start:start + _IDS_PER_QUERY]))))
    return out


def inside_filter(db: Database, recs: list[FileRecord],
                  where: Mapping[str, tuple[MetaCondition, ...]]) -> list[FileRecord]:
    """The files whose metadata meets their knowledge base's conditions (the same test the engine
    applies to their chunks): for whole documents, which no vector search sees."""
    with db.read() as s:
        values = values_of(s, [r for r in recs if r.kb_id in where])
    return [r for r in recs if r.id in values and all(c.matches(values[r.id].get(c.key)) for c in where[r.kb_id or ""])]
