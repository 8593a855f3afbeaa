"""When a file's points become visible to retrieval: the ``ready`` payload flag.

Ingest writes a file's points with ``ready`` 0, commits the file as indexed, then flags its
points (``publish``). A process killed before the commit leaves a "processing" file whose points
nobody ever sees (start-up marks it failed and deletes them); killed between the commit and the
flag, it leaves an indexed file that is not visible yet, which ``reconcile`` flags. The file row
records that its points are flagged (``searchable``), so ``reconcile``, which runs when an
engine opens (every process: the dashboard, a CLI run, a worker), opens only the collections of
files not recorded so — none on an ordinary start. It is also the migration of collections
written before the flag existed: their rows have ``searchable`` empty, so every indexed file in
them is flagged (and the flag's index made) on the first open after the upgrade. Points of files
that are not indexed are never flagged.
"""

from __future__ import annotations

import logging

from sqlmodel import select, update

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


def mark_searchable(db: Database, file_ids: list[str]) -> None:
    """Record that these files' points are flagged, so start-up does not look at them again."""
    if file_ids:
        with db.write() as s:
            mark_searchable_in(s, file_ids)


def mark_searchable_in(session, file_ids: list[str]) -> None:
    """``mark_searchable`` inside a caller's transaction (ingest records a group's flags with the
    next group's commit)."""
    for start in range(0, len(file_ids), _IDS_PER_QUERY):
        session.exec(update(FileRecord).where(FileRecord.id.in_(file_ids[start:start + _IDS_PER_QUERY]))
                     .values(searchable=True))


def reconcile(store: VectorStore, db: Database, existing: set[str] | None = None) -> dict[str, list[str]]:
    """Flag the points of every indexed file not recorded as searchable (see the module doc):
    the files flagged, by collection. Only their collections are opened, so a start with
    nothing to do opens none. A collection that cannot be updated now (a full disk) is left for
    the next start or the doctor; reads go on. ``existing``: the store's collections when the
    caller listed them."""
    with db.read() as s:
        rows = s.exec(select(FileRecord.id, FileRecord.collection).where(
            FileRecord.status == "indexed", FileRecord.searchable.is_not(True))).all()
    if not rows:
        return {}
    present = existing if existing is not None else set(store.list_collections())
    by_collection: dict[str, list[str]] = {}
    for file_id, collection in rows:
        if collection and collection in present:
            by_collection.setdefault(collection, []).append(file_id)
    flagged: dict[str, list[str]] = {}
    for name, ids in sorted(by_collection.items()):
        try:
            store.ensure_ready_index(name)
            store.mark_ready(name, sorted(ids))
        except CoreError as exc:
            log.warning("could not flag %d file(s) of %s searchable now: %s", len(ids), name, exc.message)
            continue
        mark_searchable(db, ids)
        flagged[name] = sorted(ids)
    return flagged
