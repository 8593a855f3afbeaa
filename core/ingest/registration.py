"""Registering a block of uploads for ``batch.ingest_many``: each upload checked (name, size, free
disk, a URL fetched), its file and job rows written in one commit, then its original stored. A
refused upload fails alone, with its reason and nothing stored; a duplicate is reported as one.
``Prepared`` is a registered file on its way through parse, embedding and commit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from sqlmodel import select

from core.db.models import FileRecord, Job
from core.db.rows import insert_rows, row_values
from core.error_report import shown_error
from core.errors import CoreError, InvalidInput
from core.ingest.blobs import sha256_hex
from core.ingest.failed_files import abandon_file, failed_before_start
from core.ingest.jobs import JobTracker
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.pipeline import EmbedJob, FileTarget
from core.ingest.uploads import IngestResult, Upload, fetch_url_doc
from core.messages import Said, say
from core.names import clean_name, file_display_name
from core.storage.diskspace import no_room_for_upload
from core.types import Actor, ParsedDoc
from core.upload_limits import UploadLimits

Progress = Callable[[int, int, str], None]


@dataclass
class Prepared:
    upload: Upload
    record_id: str
    tracker: JobTracker
    job: EmbedJob
    doc: ParsedDoc | None
    progress: Progress | None
    sha: str = ""
    failed: IngestResult | None = None
    # its parsed text when small enough to be a row: written with the commit that indexes it
    parsed_row: bytes | None = None

    def report(self, done: int, total: int, message: str, said: Said | None = None) -> None:
        self.tracker.progress(done, total, message, said=said)
        if self.progress:
            self.progress(done, total, message)

    def fail(self, parts: EngineParts, state: str, message: str, key: str = "", params: dict | None = None,
             retryable: bool = False) -> None:
        if self.failed is not None:
            return  # ended already (a cancel seen while its group was embedded)
        if state == "cancelled" and not key:
            key, params = "ingest.cancelled", {}
        abandon_file(parts, self.record_id, self.job.target.collection, state, message, key, params, sha=self.sha)
        # a cancelled job says so, not the step it was cancelled at ("parsing note_15.md")
        self.tracker.finish(state, error=message, said=say("ingest.cancelled") if state == "cancelled" else None)
        self.failed = IngestResult(self.upload.name, state, file_id=self.record_id, error=message,
                                   job_id=self.tracker.job_id, error_key=key, error_params=dict(params or {}),
                                   retryable=retryable)


def register_block(parts: EngineParts, snap: Snapshot, actor: Actor, block: list[tuple[int, Upload]], *,
                    collection: str, kb_id: str | None, chat_id: str | None, parsed: ParsedDoc | None,
                    job_ids: list[str] | None) -> list[tuple[int, Prepared | IngestResult]]:
    """Check a block of uploads and register those that may be stored — file row and job row,
    all of them in one commit. A refused upload fails alone (its reason, nothing stored)."""
    settings = snap.settings
    out: list[tuple[int, Prepared | IngestResult]] = []
    accepted: list[tuple[int, Upload, ParsedDoc | None]] = []
    for i, upload in block:
        checked = _check_upload(upload, settings.parsing)
        if isinstance(checked, CoreError):
            shown = upload if upload.url else Upload(file_display_name(upload.name))
            out.append((i, failed_before_start(parts, actor, shown, checked.message, kb_id=kb_id, chat_id=chat_id,
                                               key=checked.key, params=checked.params, size=len(upload.data))))
            continue
        upload, fetched = checked, parsed
        if upload.url:
            try:
                fetched = fetch_url_doc(upload.url, settings)
            except CoreError as exc:
                out.append((i, failed_before_start(parts, actor, upload, exc.message, kb_id=kb_id, chat_id=chat_id,
                                                   key=exc.key, params=exc.params)))
                continue
            # what is kept of a URL is its extracted text: reindex and full-document mode read that
            upload = Upload(upload.name, fetched.text.encode("utf-8"), upload.url)
        # each file against the space free now: a block is at most _BLOCK_BYTES, small beside the floor
        no_room = no_room_for_upload(parts.blobs.files_dir, upload.name, len(upload.data),
                                     settings.parsing.min_free_disk_mb, actor.is_admin)
        if no_room:  # refused before its original, text, vectors or rows are written: nothing is left behind
            out.append((i, IngestResult(upload.name, "failed", error=no_room)))
            continue
        accepted.append((i, upload, fetched))
    if not accepted:
        return out
    # The rows first, then the originals: a doctor running meanwhile must
    # never see an original no row claims (it would remove it as an orphan).
    shas = [sha256_hex(upload.data) for _, upload, _ in accepted]
    new_rows: list[tuple[int, Upload, ParsedDoc | None, dict]] = []  # the block's file rows, in order
    with parts.db.write() as s:
        owner = FileRecord.kb_id == kb_id if kb_id else FileRecord.chat_id == chat_id
        earlier: dict[str, list[FileRecord]] = {}  # the rows of the same content, one query for the block
        for row in s.exec(select(FileRecord).where(owner, FileRecord.sha256.in_(set(shas)))):
            earlier.setdefault(row.sha256, []).append(row)
        in_block: dict[str, dict] = {}  # sha -> the row registered for it earlier in this block
        for (i, upload, fetched), sha in zip(accepted, shas):
            old_rows = earlier.get(sha, [])
            live = [old for old in old_rows if old.status in ("indexed", "processing", "pending")]
            if sha in in_block:  # a twin inside the block is a duplicate of the first
                twin = in_block[sha]
                out.append((i, IngestResult(upload.name, "duplicate", file_id=twin["id"], chunks=0,
                                            error=f"already present as '{twin['name']}'")))
                continue
            if live:
                out.append((i, IngestResult(upload.name, "duplicate", file_id=live[0].id, chunks=live[0].chunk_count,
                                            error=f"already present as '{live[0].name}'")))
                continue
            for old in old_rows:
                s.delete(old)  # a failed or cancelled earlier attempt: try again from scratch
            row = row_values(FileRecord, sha256=sha, name=upload.name, size=len(upload.data), owner_id=actor.user_id,
                             kb_id=kb_id, chat_id=chat_id, status="processing", collection=collection)
            in_block[sha] = row
            new_rows.append((i, upload, fetched, row))
        if new_rows:
            s.flush()  # the earlier attempts' rows go first, as they did when each row was added on its own
            insert_rows(s, FileRecord, [row for _, _, _, row in new_rows])
            trackers = _track_block(parts, s, actor, kb_id, [(row["id"], upload.name) for _, upload, _, row in new_rows],
                                    [job_ids[i] for i, _, _, _ in new_rows] if job_ids is not None else None)
            for (i, upload, fetched, row), tracker in zip(new_rows, trackers):
                target = FileTarget(file_id=row["id"], collection=collection, kb_id=kb_id, chat_id=chat_id)
                out.append((i, Prepared(upload, row["id"], tracker, EmbedJob(target, []), doc=fetched, progress=None,
                                         sha=row["sha256"])))
    _store_originals(parts, actor, [item for _, item in out if isinstance(item, Prepared)])
    return sorted(out, key=lambda pair: pair[0])


def _store_originals(parts: EngineParts, actor: Actor, prepared: list[Prepared]) -> None:
    """Keep a block's originals from now on, so a file cancelled while it waits can still be
    retried (the small ones' rows in one transaction); one the disk refuses fails its file alone,
    row and job closed."""
    for item, exc in zip(prepared, parts.blobs.put_each([p.upload.data for p in prepared])):
        if exc is not None:
            item.fail(parts, "failed", shown_error(exc, actor, f"storing '{item.upload.name}'"))


def _track_block(parts: EngineParts, session, actor: Actor, kb_id: str | None, files: list[tuple[str, str]],
                 job_ids: list[str] | None) -> list[JobTracker]:
    """The job of each (file id, name) of a block, in the block's transaction: new rows in one
    INSERT, or the queued jobs named by ``job_ids`` (read in one query) told their file."""
    if job_ids is None:
        return JobTracker.start_many_in(parts.db, session, kind="ingest", actor=actor, kb_id=kb_id,
                                        files=[(file_id, say("job.parsing", name=name)) for file_id, name in files])
    queued = {j.id: j for j in session.exec(select(Job).where(Job.id.in_(job_ids)))}
    return [JobTracker.adopt_in(parts.db, session, job_id, file_id=file_id, said=say("job.parsing", name=name),
                                job=queued.get(job_id)) for (file_id, name), job_id in zip(files, job_ids)]


def _check_upload(upload: Upload, parsing) -> Upload | CoreError:
    """The upload with its name normalised, or why it is refused before anything is stored."""
    if upload.url:
        return upload
    try:
        name = clean_name(upload.name, "file", max_chars=255)
    except InvalidInput as exc:
        return exc
    refused = UploadLimits.of(parsing).too_large(name, len(upload.data))
    return refused if refused is not None else Upload(name, upload.data, upload.url)
