"""Ingest many files with embedding batched across them.

A knowledge base of many small documents (FAQ entries, tickets, slides exported one per file)
would otherwise pay per file what is paid once per group: a commit to register it, an embedding
request, a vector-store write, a commit to make it searchable. So small files are registered a
block at a time (file and job rows, one commit), then parsed and chunked one by one (a bad file
fails alone here), then the chunks of a group of files are embedded and stored in full batches
(``pipeline.embed_files``, the path reindex and repair use too), then the group is made
searchable in one commit. Cancel is per file and checked at every step: before each file, each
page parsed (for the files waiting their parse or their embedding too), each embedding call
(about a second); an embedding failure fails the files of its group that are not yet committed,
never the files before them. The whole batch uses one settings and embedder snapshot, and the
commit checks that each knowledge base still expects that embedder.

A crash at any point leaves rows in "processing" from a dead process, which
``recover_interrupted`` ends with their vectors and parsed text: never a half-indexed file.
"""

from __future__ import annotations

import logging
from typing import Callable

from sqlmodel import select

from core.db.models import FileRecord, KnowledgeBase, utcnow
from core.db.rows import update_rows
from core.error_report import shown_error
from core.errors import Cancelled, CoreError, InvalidInput
from core.ingest import ready
from core.ingest.jobs import JobTracker, cancelled_many, finish_done_many_in, progress_many
from core.ingest.kb_chunking import settings_for_kb_id
from core.chunking.pipeline import TooManyChunks
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.pipeline import (
    EmbedJob,
    embed_files,
    full_group,
    make_chunks,
)
from core.ingest.registration import Prepared, register_block
from core.ingest.uploads import IngestResult, Upload
from core.messages import Said, say
from core.metadata.payload import write_published as write_metadata
from core.parsers.base import ParseContext
from core.types import Actor, ParsedDoc

log = logging.getLogger(__name__)

_MB = 1024 * 1024

# Small files are registered (file row and job row) a block at a time, in one commit: a knowledge
# base of many one-chunk documents otherwise pays a commit per file before its parse. A block is
# small files only (a big file's parse dwarfs its one commit, and its row should not sit
# registered long before its turn); a URL is its own block, fetched when its turn comes.
_BLOCK_FILES = 64
_BLOCK_BYTES = 8 * _MB

OnResult = Callable[[int, IngestResult], None]  # (upload's index, its final result)


class _Results(list):
    """One slot per upload; ``on_result`` hears each final result as it is set, so a caller (a queue
    worker) can close a file's job when the file ends, not when the whole batch does."""

    def __init__(self, n: int, on_result: OnResult | None):
        super().__init__([None] * n)
        self._on_result = on_result

    def __setitem__(self, i, result) -> None:
        super().__setitem__(i, result)
        if self._on_result is not None and result is not None:
            self._on_result(i, result)


def ingest_many(parts: EngineParts, snap: Snapshot, actor: Actor, uploads: list[Upload], *, collection: str,
                kb_id: str | None = None, chat_id: str | None = None, parsed: ParsedDoc | None = None,
                progress: Callable[[str, int, int, str], None] | None = None,
                job_ids: list[str] | None = None, on_result: OnResult | None = None) -> list[IngestResult]:
    """``parsed``: the text of a single upload that is already parsed (a fetched page).
    ``job_ids``: each upload's queued job (tracked instead of a new job row). ``on_result``: told
    each upload's final result as soon as it has one."""
    results = _Results(len(uploads), on_result)
    group: list[tuple[int, Prepared]] = []  # parsed, waiting for their embedding
    flagged: list[str] = []  # files whose points are flagged, recorded with the next group's commit
    waiting: list[tuple[int, Prepared]] = []  # registered, waiting for their parse
    # a knowledge base's own chunking, applied to the batch's one snapshot
    snap = Snapshot(settings_for_kb_id(parts, snap.settings, kb_id), snap.embedder)

    def stop_cancelled() -> None:
        _stop_cancelled(parts, results, group, waiting)

    for block in _blocks(uploads):
        stop_cancelled()
        registered = register_block(parts, snap, actor, [(i, uploads[i]) for i in block], collection=collection,
                                     kb_id=kb_id, chat_id=chat_id, parsed=parsed, job_ids=job_ids)
        for i, item in registered:
            if isinstance(item, IngestResult) or item.failed is not None:
                results[i] = item if isinstance(item, IngestResult) else item.failed
            else:
                if progress:
                    item.progress = lambda d, t, m, n=item.upload.name: progress(n, d, t, m)
                waiting.append((i, item))
        while waiting:
            stop_cancelled()
            if not waiting:
                break
            i, prepared = waiting.pop(0)
            _parse(parts, snap, actor, prepared, between_steps=stop_cancelled)
            if prepared.failed is not None:
                results[i] = prepared.failed
                continue
            group.append((i, prepared))
            if full_group([p for _, p in group], lambda p: len(p.job.chunks)):
                _flush(parts, snap, actor, group, results, flagged)
                group = []
    if group:
        _flush(parts, snap, actor, group, results, flagged)
    # A crash before this leaves flagged files unrecorded: the next start flags them again (ready.reconcile).
    ready.mark_searchable(parts.db, flagged)
    return [r for r in results if r is not None]


def _blocks(uploads: list[Upload]) -> list[list[int]]:
    """The uploads' indexes in registration blocks, in order."""
    blocks: list[list[int]] = []
    size, open_block = 0, False  # a URL's or a big file's block takes no other file
    for i, upload in enumerate(uploads):
        small = not upload.url and len(upload.data) <= _BLOCK_BYTES
        if small and open_block and len(blocks[-1]) < _BLOCK_FILES and size + len(upload.data) <= _BLOCK_BYTES:
            blocks[-1].append(i)
            size += len(upload.data)
        else:
            blocks.append([i])
            size, open_block = len(upload.data), small
    return blocks


def _stop_cancelled(parts: EngineParts, results: list, *lists: list[tuple[int, Prepared]]) -> None:
    """End now the files asked to stop while they wait for their parse or their group's
    embedding — not when the group's last file has been parsed (an OCR'd scan can take minutes).
    Checked before each file and at every page of the one being parsed; one query for all."""
    trackers = [p.tracker for files in lists for _, p in files]
    if not trackers:
        return
    stopped = cancelled_many(parts.db, trackers)
    if not stopped:
        return
    for files in lists:
        for i, p in files:
            if p.tracker.job_id in stopped:
                p.fail(parts, "cancelled", "cancelled by request")
                results[i] = p.failed
        files[:] = [(i, p) for i, p in files if p.failed is None]


def _flush(parts: EngineParts, snap: Snapshot, actor: Actor, group: list[tuple[int, Prepared]], results: list,
           flagged: list[str]) -> None:
    prepared = [p for _, p in group]
    by_job = {id(p.job): p for p in prepared}
    index = {id(p): i for i, p in group}
    embedding = say("job.embedding")

    def should_cancel(jobs: list[EmbedJob]) -> set[int]:
        stopped = cancelled_many(parts.db, [by_job[id(j)].tracker for j in jobs])
        for j in jobs:  # ended now, not once the group's embedding is done (16 files: half a minute)
            p = by_job[id(j)]
            if p.tracker.job_id in stopped:
                p.fail(parts, "cancelled", "cancelled by request")
                results[index[id(p)]] = p.failed
        return {id(j) for j in jobs if by_job[id(j)].tracker.job_id in stopped}

    def progress(jobs: list[EmbedJob]) -> None:
        progress_many(parts.db, [(by_job[id(j)].tracker, j.embedded, len(j.chunks), embedding.text) for j in jobs],
                      said=embedding)
        for j in jobs:
            if by_job[id(j)].progress:
                by_job[id(j)].progress(j.embedded, len(j.chunks), embedding.text)

    # the group's "embedding" rows in one commit (each job keeps its throttle), not one per file
    progress([p.job for p in prepared])
    embed_files([p.job for p in prepared], snap.embedder, parts.store, batch_size=snap.settings.embedding.batch_size,
                should_cancel=should_cancel, progress=progress,
                # a plain user sees a sentence and an error id; the provider's own words go to the log
                describe=lambda exc: shown_error(exc, actor, "embedding"))
    for i, p in group:
        if p.job.state and p.failed is None:
            p.fail(parts, p.job.state, p.job.error, retryable=p.job.retryable)
            results[i] = p.failed
    committed = _commit_group(parts, snap, [p for _, p in group if p.failed is None], flagged)
    for i, p in group:
        if id(p) in committed:
            results[i] = committed[id(p)]


def _parse(parts: EngineParts, snap: Snapshot, actor: Actor, prepared: Prepared,
           between_steps: Callable[[], None] = lambda: None) -> None:
    """Parse and chunk one registered file (its original is stored). Anything wrong fails this file
    alone. ``between_steps`` runs at each step of its parse (a page): the cancel checks of the
    files waiting."""
    settings, upload, tracker = snap.settings, prepared.upload, prepared.tracker

    def parse_progress(done: int, total: int, step: Said) -> None:
        prepared.report(done, total, step.text, said=step)
        between_steps()
        if tracker.should_cancel():
            raise Cancelled.of(say("ingest.cancelled"))

    try:
        if tracker.should_cancel():
            raise Cancelled.of(say("ingest.cancelled"))
        # the chunking tells the parser how much text the chunk cap can take (core/parsers/budget.py)
        ctx = ParseContext(settings=settings.parsing, progress=parse_progress, chunking=settings.chunking)
        prepared.doc = prepared.doc or parts.parse(upload.data, upload.name, ctx)
        cap = settings.parsing.max_chunks_per_file
        try:  # a text that cannot fit is refused before it is split, not after
            prepared.job.chunks = make_chunks(prepared.doc, settings.chunking, snap.embedder, cap)
        except TooManyChunks as over:
            raise InvalidInput.of(say("ingest.too_many_chunks_at_least", name=upload.name, n=over.at_least,
                                      cap=cap)) from None
        if len(prepared.job.chunks) > cap:
            raise InvalidInput.of(say("ingest.too_many_chunks", name=upload.name, n=len(prepared.job.chunks), cap=cap))
        payload = parts.blobs.encode_parsed(prepared.doc)
        if parts.blobs.parsed_as_row(payload):
            prepared.parsed_row = payload  # a row of the commit that indexes the file (_commit_group)
        else:
            parts.blobs.put_parsed_many([(prepared.record_id, payload)])  # a file, synced before that commit
    except CoreError as exc:
        prepared.fail(parts, "cancelled" if isinstance(exc, Cancelled) else "failed", exc.message, exc.key, exc.params)
    except Exception as exc:  # a parser or library bug: this file fails alone; the log has the details
        prepared.fail(parts, "failed", shown_error(exc, actor, f"processing '{upload.name}'"))


def _commit_group(parts: EngineParts, snap: Snapshot, group: list[Prepared],
                  flagged: list[str]) -> dict[int, IngestResult]:
    """Make a group of fully embedded files searchable in one transaction (one commit, not one
    per file), then flag their points ready (one store update per collection: ``ready.publish``).
    Their parsed text is written in that transaction when it is a row; the originals and parsed
    text kept as files are made durable first (one sync for all).
    ``flagged``: files of earlier groups whose points are flagged, recorded as such in this
    commit (not in one of their own); this group's are added to it."""
    parts.blobs.sync()
    problems: dict[int, tuple[str, str]] = {}  # id(prepared) -> (state, reason)
    with parts.db.write() as s:
        # which of the group's rows are still there, in one query; then one UPDATE for the files
        # and one for their jobs, not a loaded row and its flush per file
        present = set(s.exec(select(FileRecord.id).where(FileRecord.id.in_([p.record_id for p in group]))))
        now = utcnow()
        indexed_rows: list[dict] = []
        done_jobs: list[tuple[JobTracker, Said, int]] = []
        # Checked in the same transaction that makes the files searchable, so a reindex switch
        # can't slip in between.
        kbs: dict[str, KnowledgeBase | None] = {}
        for p in group:
            kb_id, collection = p.job.target.kb_id, p.job.target.collection
            doc, chunks = p.doc, p.job.chunks
            assert doc is not None  # a prepared file that did not fail has its text
            if kb_id and kb_id not in kbs:
                kbs[kb_id] = s.get(KnowledgeBase, kb_id)
            kb = kbs.get(kb_id) if kb_id else None
            if kb_id is not None and (kb is None or kb.collection != collection):
                problems[id(p)] = ("failed", "the knowledge base was reindexed or deleted while this file was "
                                             "processing; upload it again")
                continue
            if kb is not None and kb.embedder_id != snap.embedder.id:
                problems[id(p)] = ("failed", f"the knowledge base now expects {kb.embedder_id} but this file was "
                                             f"embedded with {snap.embedder.id}; upload it again")
                continue
            if p.record_id not in present:  # deleted while it was processing: what it wrote goes too
                problems[id(p)] = ("cancelled", "the file was deleted while it was processing")
                continue
            meta = {k: v for k, v in doc.metadata.items() if isinstance(v, (str, int, float, bool, list))}
            if doc.title:  # the automatic metadata field 'title' (core/metadata/payload.py)
                meta.setdefault("title", doc.title)
            # Recorded for every file: a chat's collection has no knowledge-base row saying which
            # model built it, so its files carry it (a later embedder change is noticed).
            indexed_rows.append(dict(id=p.record_id, status="indexed", chunk_count=len(chunks), char_count=len(doc.text),
                                     mime=doc.mime, meta=dict(meta, embedder_id=snap.embedder.id), updated_at=now))
            done_jobs.append((p.tracker, say("job.chunks", n=len(chunks)), len(chunks)))
        update_rows(s, FileRecord, indexed_rows)
        indexed_ids = {row["id"] for row in indexed_rows}
        parts.blobs.put_parsed_many([(p.record_id, p.parsed_row) for p in group
                                     if p.record_id in indexed_ids and p.parsed_row is not None], session=s)
        finish_done_many_in(s, done_jobs)
        ready.mark_searchable_in(s, flagged)
        flagged.clear()
    indexed: dict[str, list[str]] = {}
    for p in group:
        if id(p) not in problems:
            indexed.setdefault(p.job.target.collection, []).append(p.record_id)
    write_metadata(parts.store, parts.db, indexed)  # metadata before the points become visible
    unflagged = ready.publish(parts.store, indexed)
    flagged.extend(f for ids in indexed.values() for f in ids if f not in unflagged)
    out: dict[int, IngestResult] = {}
    for p in group:
        if id(p) in problems:
            p.fail(parts, *problems[id(p)])
            out[id(p)] = p.failed  # type: ignore[assignment]
        else:
            warnings = list(p.doc.warnings)
            if p.record_id in unflagged:
                warnings.append(f"indexed, but not searchable until the next start or doctor run: "
                                f"{unflagged[p.record_id]}")
            out[id(p)] = IngestResult(p.upload.name, "indexed", file_id=p.record_id, chunks=len(p.job.chunks),
                                      job_id=p.tracker.job_id, warnings=warnings)
    return out
