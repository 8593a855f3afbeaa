"""Files and ingest: upload, list, inspect, delete, retry, reindex; long work goes to the job queue."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from sqlmodel import select

from core import knowledge
from core.services.outputs import FileOut, IngestOut, Limits, StagedFile, UploadOut
from core.ingest.staging import read_staged
from core.accounts.access import check_file, resolve_kb
from core.errors import InvalidInput
from core.db.models import FileRecord, Job
from core.ingest import paths as paths_mod
from core.ingest import queued
from core.ingest import reindex as reindex_mod
from core.ingest import service as ingest_mod
from core.ingest.reindex import ReindexResult
from core.ingest.service import IngestResult, Upload
from core.jobs.kinds import OnOutcome, Outcome, owner_of
from core.jobs.submit import enqueue_one, enqueue_uploads
from core.jobs.uploads import upload_status
from core.parsers.base import ParseContext
from core.services.cli_groups import FILES, INGEST_HELP, REINDEX_HELP
from core.services.declare import Arg, Cli, Http, Remote, job_kind, operation
from core.services.runtime import Runtime, parse_document
from core.types import SYSTEM_ACTOR, Actor, ParsedDoc
from core.upload_limits import MAX_FILES_PER_UPLOAD, UploadLimits

Progress = Callable[[str, int, int, str], None]
TAG = "files"
FileStatus = Literal["pending", "processing", "indexed", "failed", "cancelled"]


class FileRow(BaseModel):
    """A file as ``files list`` prints it."""

    model_config = ConfigDict(from_attributes=True)
    id: str
    name: str
    status: str
    chunks: int = Field(validation_alias="chunk_count")
    size: int
    kb_id: str | None
    error: str


def _file_line(r: dict) -> str:
    return f"{r['id']}  {r['status']:<9} {r['chunks']:>5} chunks  {r['name']}" + (f"  — {r['error']}" if r["error"] else "")


def _deleted_line(r: dict) -> str:
    return f"{r['status']:<8} {r['name']}" + (f"  — {r['error']}" if r["error"] else "")


def _absolute_paths(args: dict) -> dict:
    """The serving process reads the files: it is given absolute paths (URLs as they are)."""
    paths = [str(p) if str(p).startswith(("http://", "https://")) else str(Path(p).resolve()) for p in args["paths"]]
    return {**args, "paths": paths}


def _ingest_paths_queued(engine, args: dict) -> list[IngestResult]:
    """A CLI ingest handed to the dashboard runs on its job queue (progress and Cancel on the
    dashboard, nothing long on the hand-off's own thread); the CLI waits for the results."""
    engine.get_kb(SYSTEM_ACTOR, args["kb"])  # unknown: refused before any file is read
    return paths_mod.ingest_paths(lambda uploads: engine.submit_ingest(SYSTEM_ACTOR, args["kb"], uploads).result(),
                                  args["paths"], UploadLimits.of(engine.runtime.settings()))


def _ingest_line(r: dict) -> str:
    """A file's line of ``ingest`` without --json (its exit code: 1 when one failed)."""
    return (f"{r['status']:<10} {r['name']}" + (f"  {r['chunks']} chunks" if r["status"] == "indexed" else "")
            + (f"  — {r['error']}" if r["error"] else ""))


def readable_file(rt: Runtime, actor: Actor, file_id: str) -> FileRecord:
    with rt.db.read() as s:
        return check_file(s, actor, s.get(FileRecord, file_id), file_id)


def _reindex_text(r: dict) -> str:
    """``reindex`` without --json (its exit code: 0 done, 1 failed or cancelled)."""
    return f"reindex {r['status']}: {r['files']} files, {r['chunks']} chunks" + (f" — {r['error']}" if r["error"] else "")


class FileService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    @operation()
    def ingest(self, actor: Actor, kb: str, uploads: list[Upload], progress: Progress | None = None) -> list[IngestResult]:
        return ingest_mod.ingest(self._rt.parts, self._rt.snapshot(), actor, kb, uploads, progress)

    @operation(access="admin", admin_does="ingest files from the server's disk",
               handoff=Remote(run=_ingest_paths_queued, prepare=_absolute_paths),
               # --detach (stored and queued for the workers, beside a process holding the store) is
               # the CLI's own branch (core/cli/commands.py: _detach_option)
               cli=Cli("ingest", help=INGEST_HELP, description="", args={"kb": Arg(flag="--kb")},
                       human=lambda rs: "\n".join(map(_ingest_line, rs)),
                       exit=lambda rs: 0 if all(r["status"] in ("indexed", "duplicate") for r in rs) else 1,
                       progress="progress"))
    def ingest_paths(self, actor: Actor, kb: str, paths: list[str], progress: Progress | None = None) -> list[IngestResult]:
        """Files, folders and URLs named on the server (the CLI): admins only — it reads the server's disk."""
        return paths_mod.ingest_paths(lambda uploads: self.ingest(actor, kb, uploads, progress), paths,
                                      UploadLimits.of(self._rt.settings()))

    @operation(job=True)
    def submit_ingest(self, actor: Actor, kb: str, uploads: list[Upload]) -> Future:
        """Ingest in the background: each upload is stored and queued as a job now (its id in
        ``future.job_ids``); progress and cancel go through ``jobs()`` / ``cancel_job()``."""
        with self._rt.db.read() as s:  # fail now, in the caller, for unknown or forbidden knowledge bases
            kb_id = resolve_kb(s, actor, kb, write=True).id
        return self._rt.queued(enqueue_uploads(self._rt.db, self._rt.blobs, actor, kb_id, uploads))

    @job_kind("ingest", decode=queued.decode_ingest)
    @job_kind("retry", decode=queued.decode_ingest)
    def run_ingest_jobs(self, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
        """A worker's group of upload jobs (one knowledge base, one owner), as their owner."""
        return queued.run_ingest(self._rt.parts, self._rt.snapshot(), owner_of(self._rt.db, jobs[0]), jobs, on_outcome)

    @operation(access="user", http=Http("GET", "/api/v1/limits", name="limits", out=Limits, tag=TAG,
                                        summary="The largest upload accepted (per file) and how many files one "
                                                "upload may carry"))
    def upload_limits(self, actor: Actor) -> dict:
        return UploadLimits.of(self._rt.settings()).as_dict()

    @operation(http=Http("POST", "/api/v1/kbs/{kb}/files", name="upload_files", out=UploadOut, tag=TAG,
                         body="multipart", status_code=202,
                         summary="Upload files (multipart/form-data, field 'files'): answered once they are stored "
                                 "and queued (202, one job per file; their progress under /api/v1/uploads). "
                                 "?wait=true waits for the results (200), at most ?timeout= seconds (default 60)"))
    def upload_staged(self, actor: Actor, kb: str, files: list[StagedFile]) -> dict:
        """Files the HTTP API staged from a multipart upload (core/ingest/staging.py), stored and queued
        like every upload; the reply names their jobs and does not wait for them (the API waits
        without holding a thread when the caller asks it to)."""
        knowledge.get_kb(self._rt.db, actor, kb)  # unknown or unreadable: not found, before any file is read
        if not files:
            raise InvalidInput("no files in the upload (send them as multipart/form-data field 'files')")
        if len(files) > MAX_FILES_PER_UPLOAD:
            raise InvalidInput(f"at most {MAX_FILES_PER_UPLOAD} files per upload")
        uploads = [Upload(f.name, read_staged(self._rt.config.data_dir, f.path)) for f in files]
        with self._rt.db.read() as s:
            kb_id = resolve_kb(s, actor, kb, write=True).id
        job_ids = enqueue_uploads(self._rt.db, self._rt.blobs, actor, kb_id, uploads)
        self._rt.wake_workers()
        return upload_status(self._rt.db, actor, job_ids)

    @operation(http=Http("GET", "/api/v1/uploads", name="upload_status", out=UploadOut, tag=TAG,
                         example={"job_ids": ["0"]},
                         summary="Where the files of an upload stand (?job_ids=…&job_ids=…): each job's state and "
                                 "progress, and each file's result once every one has finished (done)"))
    def upload_status(self, actor: Actor,
                      job_ids: Annotated[list[str], Field(min_length=1, max_length=MAX_FILES_PER_UPLOAD)]) -> dict:
        return upload_status(self._rt.db, actor, list(job_ids))

    @operation(handoff=True, http=Http("GET", "/api/v1/kbs/{kb}/files", out=list[FileOut], tag=TAG,
                                       summary="The files of a knowledge base, newest first (optionally of one status)"),
               cli=Cli("list", group=FILES, out=list[FileRow], human=lambda rs: "\n".join(map(_file_line, rs)) or "no files"))
    def list_files(self, actor: Actor, kb: str | None = None, status: FileStatus | None = None) -> list[FileRecord]:
        with self._rt.db.read() as s:
            q = select(FileRecord).order_by(FileRecord.created_at.desc())
            if kb is not None:
                q = q.where(FileRecord.kb_id == resolve_kb(s, actor, kb).id)
            else:
                # Chat files are their owner's alone, admins included; an admin sees every KB file.
                own_chat_files = (FileRecord.kb_id.is_(None)) & (FileRecord.owner_id == actor.user_id)
                if actor.is_admin:
                    q = q.where((FileRecord.kb_id.is_not(None)) | own_chat_files)
                else:
                    visible = [k.id for k in knowledge.list_kbs(self._rt.db, actor)]
                    q = q.where((FileRecord.kb_id.in_(visible)) | own_chat_files)
            if status:
                q = q.where(FileRecord.status == status)
            return list(s.exec(q))

    @operation(http=Http("GET", "/api/v1/files/{file_id}", name="file_status", out=FileOut, tag=TAG,
                         summary="One file: its status (pending, processing, indexed, failed, cancelled), chunks, error"))
    def get_file(self, actor: Actor, file_id: str) -> FileRecord:
        return readable_file(self._rt, actor, file_id)

    @operation()
    def file_chunks(self, actor: Actor, file_id: str) -> list[dict]:
        """The stored chunks of a file in order (the chunk inspector)."""
        rec = readable_file(self._rt, actor, file_id)
        if rec.status != "indexed" or not self._rt.store.collection_exists(rec.collection):
            return []
        return [dict(p.payload, chunk_id=p.id) for p in self._rt.store.scroll_file(rec.collection, rec.id)]

    @operation()
    def file_text(self, actor: Actor, file_id: str) -> ParsedDoc | None:
        rec = readable_file(self._rt, actor, file_id)
        return self._rt.blobs.get_parsed(rec.id)

    @operation(handoff=True, cli=Cli("delete", group=FILES, args={"file_ids": Arg(metavar="ids")},
                                     human=lambda rs: "\n".join(map(_deleted_line, rs)),
                                     exit=lambda rs: 0 if all(r["status"] == "deleted" for r in rs) else 1))
    def delete_files(self, actor: Actor, file_ids: list[str]) -> list[IngestResult]:
        return ingest_mod.delete_files(self._rt.parts, actor, file_ids)

    @operation(http=Http("DELETE", "/api/v1/files/{file_id}", out=IngestOut, tag=TAG,
                         summary="Delete a file and every one of its vectors (the knowledge base's owner or an admin)"))
    def delete_file(self, actor: Actor, file_id: str) -> IngestResult:
        """One file, refused as a whole: not found when the actor may not read it (ids of others'
        files do not leak), permission denied when they may read and not change it; a failure
        to remove it is raised."""
        with self._rt.db.read() as s:
            rec = check_file(s, actor, s.get(FileRecord, file_id), file_id, write=True)
        # its error raised, not reported in the result: a store that cannot be reached is a 503
        ingest_mod.remove_file_everywhere(self._rt.parts, rec)
        return IngestResult(rec.name, "deleted", file_id=rec.id)

    @operation()
    def file_original(self, actor: Actor, file_id: str) -> tuple[str, bytes]:
        """(name, bytes as uploaded) of a file the actor may read (the download button)."""
        from core.ingest.originals import original

        return original(self._rt.parts, actor, file_id)

    @operation()
    def citation_view(self, actor: Actor, file_id: str, passage: str, *, page: int | None = None,
                      slide: int | None = None, heading_path: tuple[str, ...] | list[str] = ()):
        """Where a cited passage stands in its file (the PDF page rendered with it highlighted, the
        slide, the sheet rows, the surrounding text), for an actor who may read the file."""
        from core.citations.service import citation_view  # lazy: rendering pulls in Pillow

        return citation_view(self._rt.parts, actor, file_id, passage, page=page, slide=slide,
                             heading_path=tuple(heading_path or ()), views=self._rt.citation_views)

    @operation(job=True)
    def submit_retry(self, actor: Actor, file_id: str) -> tuple[str, Future]:
        """Send a failed or cancelled file through ingest again: (knowledge base id, Future)."""
        from core.ingest.originals import retry_upload

        kb_id, upload = retry_upload(self._rt.parts, actor, file_id)  # refused now when it cannot be retried
        return kb_id, self._rt.queued(enqueue_uploads(self._rt.db, self._rt.blobs, actor, kb_id, [upload], kind="retry"))

    @operation(access="open", why="parses bytes the caller already has")
    def parse(self, data: bytes, name: str) -> ParsedDoc:
        from core.settings.model import Settings
        from core.settings.store import masked

        return parse_document(data, name, ParseContext(settings=Settings.model_validate(masked(self._rt.settings())).parsing))

    @operation(handoff=Remote(via="submit_reindex"),
               cli=Cli("reindex", help=REINDEX_HELP, args={"kb": Arg(flag="--kb")}, human=_reindex_text,
                       exit=lambda r: 0 if r["status"] == "done" else 1, progress="progress", progress_label="kb"))
    def reindex(self, actor: Actor, kb: str, progress: Callable[[int, int, str], None] | None = None) -> ReindexResult:
        return reindex_mod.reindex(self._rt.parts, self._rt.snapshot(), actor, kb, progress)

    @operation(job=True)
    def submit_reindex(self, actor: Actor, kb: str) -> Future:
        with self._rt.db.read() as s:
            kb_id = resolve_kb(s, actor, kb, write=True).id
        return self._rt.queued([enqueue_one(self._rt.db, actor, "reindex", kb_id=kb_id)])

    @job_kind("reindex", decode=queued.decode_reindex)
    def run_reindex_job(self, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
        [job] = jobs
        return [queued.run_reindex(self._rt.parts, self._rt.snapshot(), owner_of(self._rt.db, job), job)]
