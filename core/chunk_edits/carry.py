"""Edits across a reindex: a file's chunks are made again from its text, so each edit follows the
chunk that still holds its passage (``base_text``; chunking settings may have moved it to another
index) and is dropped, with a notice on the file, when no chunk does — the file's text is not what
was edited any more. Chunks added by hand are kept. A new version of a file from its source is a
new file: its edits are dropped and the new file says so (``drop_replaced``).

``carry`` writes the edits into the new collection before it serves (the reindex flags its points
ready afterwards); ``Carried.commit`` records the moves and drops once the switch has committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import select

from core.chunk_edits.edits import NOTICE_KEY
from core.chunk_edits.models import ChunkEdit, ChunkEditLog
from core.chunk_edits.points import ChunkWrite, base_payload, write_chunks
from core.db.database import Database
from core.db.models import FileRecord, utcnow
from core.ingest.parts import EngineParts
from core.ingest.pipeline import point_id
from core.settings.model import Settings
from core.vectorstore.base import VectorStore

_SYSTEM = ("system", "ragdesk")


@dataclass
class Carried:
    collection: str
    moves: dict[str, int] = field(default_factory=dict)  # edit id -> its chunk's index in the new index
    dropped: list[ChunkEdit] = field(default_factory=list)
    files: set[str] = field(default_factory=set)  # files that had edits
    seen: set[str] = field(default_factory=set)  # files carried (with or without edits)

    def commit(self, db: Database, store: VectorStore) -> None:
        """Record the moves and drops (once the new index serves) and the files' counts."""
        if not self.files:
            return
        counts = {f: store.count(self.collection, f) for f in self.files}
        with db.write() as s:
            rows = {e.id: e for e in s.exec(select(ChunkEdit).where(ChunkEdit.id.in_(list(self.moves))))}
            for n, row in enumerate(rows.values()):  # out of the way first: two edits may swap places
                row.chunk_index = -1 - n
                s.add(row)
            s.flush()
            for edit_id, index in self.moves.items():
                rows[edit_id].chunk_index = index
                s.add(rows[edit_id])
            for gone in self.dropped:
                row = s.get(ChunkEdit, gone.id)
                if row is not None:
                    s.delete(row)
            s.flush()
            _log_drops(s, self.dropped, "its passage is no longer in the file after the reindex")
            for file_id in self.files:
                rec = s.get(FileRecord, file_id)
                if rec is None:
                    continue
                n_dropped = sum(1 for d in self.dropped if d.file_id == file_id)
                if n_dropped:
                    _tell(rec, f"{n_dropped} chunk edit(s) were dropped at the reindex of {utcnow():%Y-%m-%d %H:%M} UTC: "
                               "their passage is no longer in the file")
                if rec.collection == self.collection:
                    rec.chunk_count = counts[file_id]
                s.add(rec)


def _tell(rec: FileRecord, notice: str) -> None:
    rec.meta = {**(rec.meta or {}), NOTICE_KEY: notice}  # a new dict: the JSON column sees the change


def _log_drops(session, dropped: list[ChunkEdit], why: str, file_id: str | None = None) -> None:
    """``file_id``: the file whose history shows them (the new version of a replaced file)."""
    for d in dropped:
        before = {"text": d.text if d.text is not None else d.base_text, "keywords": list(d.keywords or []),
                  "disabled": d.disabled}
        session.add(ChunkEditLog(file_id=file_id or d.file_id, kb_id=d.kb_id, chunk_index=d.chunk_index, action="dropped",
                                 actor_id=_SYSTEM[0], actor_name=_SYSTEM[1], before=before, after=None, note=why))


def carry(parts: EngineParts, embedder, settings: Settings, collection: str, file_ids: list[str],
          into: Carried | None = None) -> Carried:
    """Write the edits of these files into ``collection``, whose points were just made from the
    files (each file once: a reindex that catches up calls it again with the same ``into``)."""
    out = into if into is not None else Carried(collection)
    todo = [f for f in file_ids if f not in out.seen]
    out.seen.update(todo)
    if not todo:
        return out
    with parts.db.read() as s:
        edits = list(s.exec(select(ChunkEdit).where(ChunkEdit.file_id.in_(todo))))
    by_file: dict[str, list[ChunkEdit]] = {}
    for e in edits:
        by_file.setdefault(e.file_id, []).append(e)
    for file_id, rows in by_file.items():
        out.files.add(file_id)
        _carry_file(parts, embedder, settings, out, file_id, rows)
    return out


def _carry_file(parts: EngineParts, embedder, settings: Settings, out: Carried, file_id: str,
                rows: list[ChunkEdit]) -> None:
    collection = out.collection
    points = {int(p.payload.get("chunk_index", 0)): p.payload for p in parts.store.scroll_file(collection, file_id)}
    claimed: set[int] = set()
    writes: list[ChunkWrite] = []
    deletes: list[str] = []
    for row in sorted(rows, key=lambda r: r.chunk_index):
        if row.kind == "added":
            index, payload = row.chunk_index, row.payload or {}
        else:
            index = _find(points, claimed, row)
            if index is None:
                out.dropped.append(row)
                continue
            payload = base_payload(points[index])
            if index != row.chunk_index:
                out.moves[row.id] = index
        claimed.add(index)
        if row.disabled:
            deletes.append(point_id(file_id, index))
        elif row.kind == "added" or row.text is not None or row.keywords:
            text = row.text if row.text is not None else row.base_text
            writes.append(ChunkWrite(index, text, list(row.keywords or []), payload, row.kind))
    doc = parts.blobs.get_parsed(file_id) if settings.chunking.contextual_text else None
    write_chunks(parts.store, embedder, collection, file_id, writes, title=doc.title if doc else None,
                 contextual=settings.chunking.contextual_text, ready=False)
    parts.store.delete_points(collection, deletes)


def _find(points: dict[int, dict], claimed: set[int], row: ChunkEdit) -> int | None:
    """The new chunk holding the edit's passage: at its old index if it is still there, else the first."""
    if row.chunk_index not in claimed and points.get(row.chunk_index, {}).get("text") == row.base_text:
        return row.chunk_index
    for index in sorted(points):
        if index not in claimed and points[index].get("text") == row.base_text:
            return index
    return None


def drop_replaced(db: Database, old_file_id: str, new_file_id: str) -> int:
    """A new version of a file replaced ``old_file_id``: once that file is gone, its edits are dropped
    and the new file says so (a file kept for another use keeps its edits)."""
    with db.write() as s:
        if s.get(FileRecord, old_file_id) is not None:
            return 0
        rows = list(s.exec(select(ChunkEdit).where(ChunkEdit.file_id == old_file_id)))
        if not rows:
            return 0
        for row in rows:
            s.delete(row)
        s.flush()
        _log_drops(s, rows, "the file changed at its source", file_id=new_file_id)
        rec = s.get(FileRecord, new_file_id)
        if rec is not None:
            _tell(rec, f"{len(rows)} chunk edit(s) of the earlier version were dropped: the file changed "
                       f"({utcnow():%Y-%m-%d %H:%M} UTC)")
            s.add(rec)
    return len(rows)
