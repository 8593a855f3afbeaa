"""When a file's points become visible to retrieval: the ``ready`` payload flag.

Ingest writes a file's points with ``ready`` 0, commits the file as indexed, then flags its
points (``publish``). A process killed before the commit leaves a "processing" file whose points
nobody ever sees (start-up marks it failed and deletes them); killed between the commit and the
flag, it leaves an indexed file that is not visible yet, which ``reconcile`` flags. ``reconcile``
runs when an engine opens (every process: the dashboard, a CLI run, a worker) and in the doctor;
it is also the migration of collections written before the flag existed: their points have no
``ready`` at all, so every indexed file in them is flagged (and the flag's index made) on the
first open after the upgrade. Points of files that are not indexed are never flagged.
"""

from __future__ import annotations

import logging

from sqlmodel import select

from core.db.database import Database
from core.db.models import FileRecord
from core.errors import CoreError
from core.vectorstore.base import VectorStore

log = logging.getLogger(__name__)

_IDS_PER_QUERY = 500  # under every database's bound-parameter limit


def publish(store: VectorStore, files: dict[str, list[str]]) -> dict[str, str]:
    """Flag the points of files just committed as indexed ({collection: file ids}). Returns the
    files that could not be flagged, with the reason: they are indexed but not visible until
    the next start or doctor run flags them (nothing is lost)."""
    failed: dict[str, str] = {}
    for collection, file_ids in files.items():
        if not file_ids:
            continue
        try:
            store.mark_ready(collection, file_ids)
        except CoreError as exc:
            log.warning("could not make %d file(s) of %s searchable: %s", len(file_ids), collection, exc.message)
            failed.update({f: exc.message for f in file_ids})
    return failed


def reconcile(store: VectorStore, db: Database, existing: set[str] | None = None) -> dict[str, list[str]]:
    """Flag every indexed file whose points are not flagged (see the module doc); the files
    flagged, by collection. ``existing``: the store's collections when the caller listed them."""
    with db.read() as s:
        used = set(s.exec(select(FileRecord.collection).where(FileRecord.status == "indexed")))
    names = sorted(c for c in used if c and c in (existing if existing is not None else set(store.list_collections())))
    flagged: dict[str, list[str]] = {}
    for name in names:
        store.ensure_ready_index(name)
        unready = store.unready_file_ids(name)
        if not unready:
            continue
        ids, indexed = sorted(unready), []
        with db.read() as s:
            for start in range(0, len(ids), _IDS_PER_QUERY):
                indexed += s.exec(select(FileRecord.id).where(
                    FileRecord.id.in_(ids[start:start + _IDS_PER_QUERY]), FileRecord.collection == name,
                    FileRecord.status == "indexed")).all()
        if indexed:
            store.mark_ready(name, indexed)
            flagged[name] = indexed
    return flagged
