"""The sync engine: make a knowledge base hold exactly what a source holds now.

It knows the ``Source`` protocol only. For one source it lists what changed, then:
- new items are fetched and ingested;
- changed items are ingested as a new file first and the old file is removed only once the new
  one is indexed — search answers from the old version until then, never from neither;
- items gone from the source (deleted, trashed, moved out) are removed with every vector;
- a renamed or moved-within item keeps its file (its version is unchanged) and only its
  metadata follows.
Every item gets a result; one that fails is left as it was and tried again next run (the
changes cursor is not advanced past a failure). A source that raises anything — a CoreError or
a bug of its own — ends its sync "failed" with a reason, never "done". A database lease
(``lease.py``: a heartbeat renews it, a dead holder frees it at once) keeps two syncs of one
source from overlapping, in any process; a sync that finds its lease lost stops at its next step.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable

from sqlmodel import select

from core.accounts.access import resolve_kb
from core.chunk_edits.carry import drop_replaced as drop_replaced_edits
from core.db.models import FileRecord, utcnow
from core.error_report import shown_error
from core.errors import CoreError
from core.ingest import service as ingest_mod
from core.ingest.jobs import JobTracker
from core.ingest.parts import EngineParts
from core.ingest.service import Upload
from core.messages import ENGLISH, say
from core.metadata.payload import refresh as refresh_metadata
from core.sources import lease
from core.sources.base import Listing, RemoteItem, Source, SourceUnavailable
from core.sources.models import SourceItemRecord, SyncedSource, SyncLog
from core.sources.report import ItemResult, SyncReport  # noqa: F401 (read from here too)
from core.types import Actor

log = logging.getLogger(__name__)

FETCH_GROUP = 8  # items fetched, then ingested together (bounded memory, batched embedding)
FileProgress = Callable[[str, int, int, str], None]


@dataclass
class _Plan:
    add: list[RemoteItem] = field(default_factory=list)
    update: list[RemoteItem] = field(default_factory=list)
    rename: list[RemoteItem] = field(default_factory=list)
    remove: list[SourceItemRecord] = field(default_factory=list)


def plan(listing: Listing, held: dict[str, SourceItemRecord]) -> _Plan:
    """What to do, from a listing and the items held (by item id + version)."""
    out = _Plan()
    seen = set()
    for item in listing.items:
        seen.add(item.item_id)
        have = held.get(item.item_id)
        if have is None:
            out.add.append(item)
        elif have.version != item.version:
            out.update.append(item)
        elif have.name != item.name:
            out.rename.append(item)
    seen |= set(listing.errors)
    gone = (set(held) - seen) if listing.full else {i for i in listing.removed if i in held and i not in seen}
    out.remove = [held[i] for i in sorted(gone)]
    return out


def run_sync(parts: EngineParts, actor: Actor, source_id: str, source: Source, *, trigger: str = "manual",
             progress: FileProgress | None = None, tracker: JobTracker | None = None) -> SyncReport:
    with parts.db.read() as s:
        row = s.get(SyncedSource, source_id)
        if row is None:
            raise CoreError(f"source '{source_id}' not found")
        resolve_kb(s, actor, row.kb_id, write=True)
    with lease.Lease(parts.db, source_id) as sync_lease:
        return _run_leased(parts, actor, row, source, trigger, progress, tracker, sync_lease)


def _run_leased(parts: EngineParts, actor: Actor, row: SyncedSource, source: Source, trigger: str,
                progress: FileProgress | None, tracker: JobTracker | None, sync_lease: lease.Lease) -> SyncReport:
    source_id = row.id
    with parts.db.write() as s:
        entry = SyncLog(source_id=source_id, kb_id=row.kb_id, trigger=trigger)
        s.add(entry)
    report = SyncReport(source_id, entry.id, "done")
    try:
        _sync(parts, actor, row, source, report, progress, tracker, sync_lease)
    except SourceUnavailable as exc:
        report.status, report.error, report.source_state = "failed", exc.message, getattr(exc, "state", "error")
        _mark_source(parts, source_id, state=report.source_state, error=exc.message)
    except lease.LeaseLost as exc:  # not the source's fault: the sync that took over owns its state now
        report.status, report.error = "failed", exc.message
    except CoreError as exc:
        report.status, report.error, report.source_state = "failed", exc.message, "error"
        _mark_source(parts, source_id, state="error", error=exc.message)
    except Exception as exc:  # a source implementation's bug (a reply it did not expect): this source fails
        message = shown_error(exc, actor, f"syncing the source '{row.title or source_id}'")
        report.status, report.error, report.source_state = "failed", message, "error"
        _mark_source(parts, source_id, state="error", error=message)
    finally:
        _finish_log(parts, report)
    return report


def _sync(parts: EngineParts, actor: Actor, row: SyncedSource, source: Source, report: SyncReport,
          progress: FileProgress | None, tracker: JobTracker | None, sync_lease: lease.Lease) -> None:
    listing = source.listing(row.cursor)
    report.full_listing = listing.full
    with parts.db.read() as s:
        held = {r.item_id: r for r in s.exec(select(SourceItemRecord).where(SourceItemRecord.source_id == row.id))}
        present = set(s.exec(select(FileRecord.id).where(FileRecord.id.in_([r.file_id for r in held.values()]),
                                                           FileRecord.status == "indexed")))
    # A file deleted from the knowledge base by hand is no longer held: the source adds it back
    # (a synced knowledge base mirrors its source; unwatch or remove the source to keep it out).
    held = {k: r for k, r in held.items() if r.file_id in present}
    todo = plan(listing, held)
    total = len(todo.add) + len(todo.update) + len(todo.remove) + len(todo.rename)
    done = 0

    def step(action: str, name: str) -> bool:
        nonlocal done
        done += 1
        if tracker is not None:
            known = f"sync.{action}" in ENGLISH
            said = say(f"sync.{action}", name=name) if known else None  # a key: the page words it for its reader
            tracker.progress(done, total, said.text if said else f"{action} {name}", said=said)
            return tracker.should_cancel()
        return False

    for item_id, error in listing.errors.items():
        name = held[item_id].name if item_id in held else item_id
        report.results.append(ItemResult(item_id, name, "failed", held[item_id].file_id if item_id in held else None, error=error))
    for item_id, (name, reason) in listing.skipped.items():
        report.results.append(ItemResult(item_id, name, "skipped", error=reason))
    for rec in todo.remove:
        sync_lease.check()  # every step: a sync that lost its lease stops before it changes anything more
        _remove_item(parts, row.id, rec)
        report.results.append(ItemResult(rec.item_id, rec.name, "removed", rec.file_id))
        step("removed", rec.name)
    for item in todo.rename:
        sync_lease.check()
        _hold(parts, row, item, held[item.item_id].file_id, owns=held[item.item_id].owns_file)
        report.results.append(ItemResult(item.item_id, item.name, "renamed", held[item.item_id].file_id))
        step("renamed", item.name)
    work = [(i, None) for i in todo.add] + [(i, held[i.item_id]) for i in todo.update]
    for start in range(0, len(work), FETCH_GROUP):
        if tracker is not None and tracker.should_cancel():
            report.status = "cancelled"
            report.results += [ItemResult(i.item_id, i.name, "cancelled") for i, _ in work[start:]]
            break
        sync_lease.check()
        group = work[start:start + FETCH_GROUP]
        for result in _ingest_group(parts, actor, row, source, group, progress):
            report.results.append(result)
            step(result.action, result.name)
    sync_lease.check()  # the cursor is saved only by the sync that still holds the source
    clean = report.status == "done" and not any(r.action in ("failed", "cancelled") for r in report.results)
    # A failure keeps the old cursor: the next run sees the same changes again (applying them
    # twice is harmless, versions are compared) and so retries the item that failed.
    _mark_source(parts, row.id, state="ok", error="", cursor=listing.cursor if clean else None, synced=True)


def _ingest_group(parts: EngineParts, actor: Actor, row: SyncedSource, source: Source,
                  group: list[tuple[RemoteItem, SourceItemRecord | None]],
                  progress: FileProgress | None) -> list[ItemResult]:
    results: list[ItemResult] = []
    fetched: list[tuple[RemoteItem, SourceItemRecord | None, Upload]] = []
    for item, old in group:
        try:
            fetched.append((item, old, source.fetch(item)))
        except SourceUnavailable:
            raise
        except CoreError as exc:
            results.append(ItemResult(item.item_id, item.name, "failed", old.file_id if old else None, error=exc.message))
        except Exception as exc:  # the source's bug on this one item: it fails alone, with a reason
            results.append(ItemResult(item.item_id, item.name, "failed", old.file_id if old else None,
                                      error=shown_error(exc, actor, f"fetching '{item.name}'")))
    if not fetched:
        return results
    outcomes = ingest_mod.ingest(parts, parts.snapshot(), actor, row.kb_id, [u for _, _, u in fetched], progress)
    for (item, old, _), outcome in zip(fetched, outcomes, strict=True):  # one result per upload
        results.append(_apply(parts, row, item, old, outcome))
    return results


def _apply(parts: EngineParts, row: SyncedSource, item: RemoteItem, old: SourceItemRecord | None,
           outcome: ingest_mod.IngestResult) -> ItemResult:
    action = "updated" if old is not None else "added"
    if outcome.status == "indexed" or (outcome.status == "duplicate" and outcome.file_id):
        same_file = old is not None and old.file_id == outcome.file_id
        owns = outcome.status == "indexed" or (same_file and old.owns_file)
        _hold(parts, row, item, outcome.file_id, owns=owns)
        if old is not None and not same_file and old.owns_file:
            _drop_file_if_unused(parts, old.file_id)  # only now: the new version answers already
            drop_replaced_edits(parts.db, old.file_id, outcome.file_id)  # the file changed: its hand edits go
        if outcome.status == "duplicate" and not same_file:
            action = "duplicate"
        return ItemResult(item.item_id, item.name, action, outcome.file_id, outcome.chunks, outcome.error if action == "duplicate" else "")
    # failed or cancelled: the attempt's own record goes; an older version (if any) stays and answers
    if outcome.file_id and (old is None or outcome.file_id != old.file_id):
        _drop_file_if_unused(parts, outcome.file_id)
    state = "cancelled" if outcome.status == "cancelled" else "failed"
    return ItemResult(item.item_id, item.name, state, old.file_id if old else None, error=outcome.error)


def _hold(parts: EngineParts, row: SyncedSource, item: RemoteItem, file_id: str, *, owns: bool) -> None:
    """Record the item as held by ``file_id`` and give the file (when it is the item's own) its metadata."""
    with parts.db.write() as s:
        rec = s.get(SourceItemRecord, (row.id, item.item_id)) or SourceItemRecord(source_id=row.id, item_id=item.item_id, file_id=file_id)
        rec.file_id, rec.name, rec.version, rec.owns_file, rec.updated_at = file_id, item.name, item.version, owns, utcnow()
        s.add(rec)
        file = s.get(FileRecord, file_id) if owns else None
        if file is not None:
            file.meta = dict(file.meta or {}, **item.meta, source_id=row.id, source_kind=row.kind,
                             source_item_id=item.item_id, source_version=item.version)
            s.add(file)
    if owns:  # the automatic metadata (modified time, owner) now knows the source's values
        refresh_metadata(parts.store, parts.db, [file_id])


def _remove_item(parts: EngineParts, source_id: str, rec: SourceItemRecord) -> None:
    with parts.db.write() as s:
        row = s.get(SourceItemRecord, (source_id, rec.item_id))
        if row is not None:
            s.delete(row)
    if rec.owns_file:
        _drop_file_if_unused(parts, rec.file_id)


def _drop_file_if_unused(parts: EngineParts, file_id: str) -> None:
    """Remove a file and every vector of it, unless an item of some source still maps to it."""
    with parts.db.read() as s:
        still = s.exec(select(SourceItemRecord).where(SourceItemRecord.file_id == file_id)).first()
        file = s.get(FileRecord, file_id)
    if still is None and file is not None:
        ingest_mod.remove_file_everywhere(parts, file)


def _mark_source(parts: EngineParts, source_id: str, *, state: str, error: str, cursor: str | None = None,
                 synced: bool = False) -> None:
    with parts.db.write() as s:
        src = s.get(SyncedSource, source_id)
        if src is None:
            return
        src.state, src.last_error = state, error
        if cursor is not None:
            src.cursor = cursor
        if synced:
            src.last_sync_at = utcnow()
        s.add(src)


def _finish_log(parts: EngineParts, report: SyncReport) -> None:
    with parts.db.write() as s:
        entry = s.get(SyncLog, report.log_id)
        summary = report.as_dict()
        entry.status, entry.error, entry.full_listing = report.status, report.error, report.full_listing
        entry.added, entry.updated, entry.removed, entry.failed = (summary["added"], summary["updated"],
                                                                    summary["removed"], summary["failed"])
        entry.results, entry.finished_at = summary["results"], utcnow()
        s.add(entry)
