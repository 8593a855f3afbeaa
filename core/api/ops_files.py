"""Files (upload, list, status, delete) and the jobs that index them."""

from __future__ import annotations

from core.accounts.access import can_write_kb
from core.api.models import (
    Empty,
    FileList,
    FileOut,
    FileRef,
    FileUpload,
    IngestOut,
    JobList,
    JobOut,
    JobRef,
    Limits,
)
from core.api.registry import operation
from core.api.staging import read_staged
from core.errors import InvalidInput, NotFound, PermissionDenied
from core.ingest.service import Upload

MAX_FILES_PER_UPLOAD = 20


@operation("limits", "GET", "/api/v1/limits", input=Empty, output=Limits, tag="files",
           summary="The largest upload accepted (per file) and how many files one upload may carry")
def limits(engine, actor, _: Empty) -> Limits:
    return Limits(max_upload_mb=engine.settings().parsing.max_upload_mb, max_files_per_upload=MAX_FILES_PER_UPLOAD)


@operation("list_files", "GET", "/api/v1/kbs/{kb}/files", input=FileList, output=list[FileOut], tag="files",
           summary="The files of a knowledge base, newest first (optionally of one status)")
def list_files(engine, actor, data: FileList) -> list[FileOut]:
    return [FileOut.model_validate(f) for f in engine.list_files(actor, data.kb, data.status)]


@operation("upload_files", "POST", "/api/v1/kbs/{kb}/files", input=FileUpload, output=list[IngestOut],
           tag="files", body="multipart", job=True,
           summary="Upload files (multipart/form-data, field 'files'); one result per file, each indexed "
                   "as a job (its progress under /api/v1/jobs while it runs)")
def upload_files(engine, actor, data: FileUpload) -> list[IngestOut]:
    if not data.files:
        raise InvalidInput("no files in the upload (send them as multipart/form-data field 'files')")
    if len(data.files) > MAX_FILES_PER_UPLOAD:
        raise InvalidInput(f"at most {MAX_FILES_PER_UPLOAD} files per upload")
    engine.get_kb(actor, data.kb)  # unknown or unreadable: not found, before any file is read
    uploads = [Upload(f.name, read_staged(engine.config.data_dir, f.path)) for f in data.files]
    # through the job queue like every upload (its progress and Cancel under /api/v1/jobs); the reply
    # waits for the results, as a dashboard upload does
    return [IngestOut.model_validate(r) for r in engine.submit_ingest(actor, data.kb, uploads).result()]


@operation("file_status", "GET", "/api/v1/files/{file_id}", input=FileRef, output=FileOut, tag="files",
           summary="One file: its status (pending, processing, indexed, failed, cancelled), chunks, error")
def file_status(engine, actor, data: FileRef) -> FileOut:
    return FileOut.model_validate(engine.get_file(actor, data.file_id))


@operation("delete_file", "DELETE", "/api/v1/files/{file_id}", input=FileRef, output=IngestOut, tag="files",
           summary="Delete a file and every one of its vectors (the knowledge base's owner or an admin)")
def delete_file(engine, actor, data: FileRef) -> IngestOut:
    rec = engine.get_file(actor, data.file_id)  # not found when unreadable: ids of others' files do not leak
    if rec.kb_id:
        kb = engine.get_kb(actor, rec.kb_id)
        if not can_write_kb(actor, kb):
            raise PermissionDenied(f"only the owner of knowledge base '{kb.name}' or an admin may change its files")
    (result,) = engine.delete_files(actor, [data.file_id])
    return IngestOut.model_validate(result)


@operation("list_jobs", "GET", "/api/v1/jobs", input=JobList, output=list[JobOut], tag="jobs",
           summary="Your ingest and reindex jobs, newest first (admins: everyone's)")
def list_jobs(engine, actor, data: JobList) -> list[JobOut]:
    return [JobOut.model_validate(j) for j in engine.jobs(actor, active_only=data.active_only)]


def _job(engine, actor, job_id: str):
    found = engine.jobs(actor, ids=[job_id])
    if not found:
        raise NotFound(f"job '{job_id}' not found")
    return found[0]


@operation("get_job", "GET", "/api/v1/jobs/{job_id}", input=JobRef, output=JobOut, tag="jobs",
           summary="One job's state and progress")
def get_job(engine, actor, data: JobRef) -> JobOut:
    return JobOut.model_validate(_job(engine, actor, data.job_id))


@operation("cancel_job", "POST", "/api/v1/jobs/{job_id}/cancel", input=JobRef, output=JobOut, tag="jobs",
           summary="Ask a running job to stop (it stops at its next step)")
def cancel_job(engine, actor, data: JobRef) -> JobOut:
    return JobOut.model_validate(engine.cancel_job(actor, data.job_id))
