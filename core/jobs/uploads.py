"""Where the files of an upload stand: each one's job, and each one's result once all have finished
(the HTTP API's upload reply and ``GET /api/v1/uploads``)."""

from __future__ import annotations

from dataclasses import asdict

from sqlmodel import select

from core.db.database import Database
from core.db.models import Job
from core.errors import CoreError, NotFound
from core.ingest.queued import decode_ingest
from core.jobs import queue
from core.types import Actor

UPLOAD_KINDS = ("ingest", "retry")


def _result(job: Job) -> dict:
    try:
        [result] = decode_ingest([job])
    except CoreError as exc:  # the whole group was refused (a reindex needed, the knowledge base gone)
        name = (job.payload or {}).get("name") or job.id
        return {"name": name, "status": "failed", "file_id": job.file_id, "error": exc.message, "job_id": job.id}
    out = asdict(result)
    out["job_id"] = out.get("job_id") or job.id
    return out


def upload_status(db: Database, actor: Actor, job_ids: list[str]) -> dict:
    """``{"done", "jobs", "results"}`` for upload jobs the actor may see (another user's, or an id
    that names no upload, is not found)."""
    with db.read() as s:
        rows = {j.id: j for j in s.exec(select(Job).where(Job.id.in_(job_ids)))}
    jobs = []
    for job_id in job_ids:
        job = rows.get(job_id)
        if job is None or job.kind not in UPLOAD_KINDS or (not actor.is_admin and job.owner_id != actor.user_id):
            raise NotFound(f"upload job '{job_id}' not found")
        jobs.append(job)
    done = all(queue.finished(j) for j in jobs)
    return {"done": done,
            "jobs": [{"job_id": j.id, "name": (j.payload or {}).get("name") or (j.payload or {}).get("url") or j.id,
                      "state": j.state, "progress_done": j.progress_done, "progress_total": j.progress_total,
                      "message": j.message, "error": j.error} for j in jobs],
            "results": [_result(j) for j in jobs] if done else []}
