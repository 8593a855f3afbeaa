"""Enqueueing work with only the database and the blob folder — no vector store, so it works
from any process (the CLI's ``ingest --detach`` while the dashboard runs, a dashboard replica).

An upload's bytes go to the blob store as it arrives and its job names them (nothing waits in
memory). Order, so no doctor takes a waiting upload's original for an orphan and no worker
claims one whose original is not written yet: the job rows are committed ``staged`` first, the
originals written and synced, then the rows become ``queued``.
"""

from __future__ import annotations

import logging

from core.db.database import Database
from core.db.models import utcnow, Job
from core.ingest.blobs import BlobStore, sha256_hex
from core.ingest.service import Upload
from core.jobs import queue
from core.messages import say
from core.types import Actor

log = logging.getLogger(__name__)

WAITING = say("job.waiting")  # a key, so an interface says it in its reader's language
WAITING_MESSAGE = WAITING.text


def enqueue_uploads(db: Database, blobs: BlobStore, actor: Actor, kb_id: str, uploads: list[Upload],
                    kind: str = "ingest") -> list[str]:
    """One queued job per upload (a URL's job names the URL; a file's, its stored original); ids in order."""
    jobs: list[Job] = []
    with db.write() as s:
        for u in uploads:
            if u.url:
                jobs.append(queue.enqueue_in(s, kind=kind, owner_id=actor.user_id, kb_id=kb_id,
                                             payload={"name": u.name, "url": u.url}, said=WAITING))
            else:
                jobs.append(queue.enqueue_in(s, kind=kind, owner_id=actor.user_id, kb_id=kb_id, staged=True,
                                             payload={"name": u.name, "size": len(u.data)},
                                             blob=sha256_hex(u.data), said=WAITING))
    stored, refused = [], {}
    files = [(job, u) for job, u in zip(jobs, uploads) if not u.url]
    for (job, _), exc in zip(files, blobs.put_each([u.data for _, u in files])):
        if exc is None:
            stored.append(job.id)
        else:  # a full or read-only disk: this upload fails alone, with the reason
            refused[job.id] = f"could not store the upload: {getattr(exc, 'strerror', None) or exc}"
    blobs.sync()
    queue.publish(db, stored)
    if refused:
        _fail(db, refused)
    return [j.id for j in jobs]


def _fail(db: Database, reasons: dict[str, str]) -> None:
    with db.write() as s:
        for job_id, why in reasons.items():
            job = s.get(Job, job_id)
            if job is not None:
                job.state, job.error, job.blob = "failed", why, ""
                job.finished_at = job.updated_at = utcnow()
                s.add(job)


def enqueue_one(db: Database, actor: Actor, kind: str, *, kb_id: str | None = None, payload: dict | None = None,
                blob: str = "") -> str:
    return queue.enqueue(db, kind=kind, owner_id=actor.user_id, kb_id=kb_id, payload=payload, said=WAITING,
                         blob=blob).id
