"""The durable job queue: rows of the ``job`` table, claimed by workers under a lease.

States: ``staged`` (its upload is still being written to the blob store: not claimable) →
``queued`` → ``running`` (a worker holds it: ``worker_id``, ``lease_until`` kept in the future by
its heartbeat) → ``done`` | ``failed`` | ``cancelled``.

A claim is one write transaction: ``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL (the
engine's writes there also take one advisory lock, so claims are serialised either way); on
SQLite the write transaction is ``BEGIN IMMEDIATE`` — a single writer, the same guarantee. Two
workers never hold one job.

A running job whose worker is gone — its lease expired, or its process on this host no longer
exists — is queued again (``attempts`` counts the claims) up to ``jobs.max_attempts``, then
failed with the reason. Whatever the dead attempt left half-done is its kind's to clean
(core/jobs/kinds.py) before it runs again.

A job that failed on something passing (a vector store or embedding server that cannot be
reached: a ``retryable`` error) is queued again too, not before a pause that doubles with each
attempt (``retry_later``): a queued job's ``lease_until``, when set, is the time before which no
worker claims it.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone

from sqlmodel import select

from core.db.database import Database
from core.db.models import Job, utcnow
from core.errors import NotFound
from core.ingest.jobs import _LOCAL_CANCEL_EVENTS, HOST, process_alive
from core.messages import Said
from core.types import Actor

WAITING = ("staged", "queued")
ACTIVE = ("staged", "queued", "running")
ENDED = ("done", "failed", "cancelled")
BATCHED_KINDS = ("ingest",)  # queued jobs of one knowledge base and owner claimed together


def aware(value: datetime | None) -> datetime | None:
    # SQLite hands datetimes back without a zone; they were written in UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def new_worker_id(label: str = "w") -> str:
    """``host:pid:label:random`` — the host and pid let a process on this host tell a dead worker at once."""
    return f"{HOST}:{os.getpid()}:{label}:{uuid.uuid4().hex[:6]}"


def enqueue_in(session, *, kind: str, owner_id: str, kb_id: str | None = None, file_id: str | None = None,
               payload: dict | None = None, blob: str = "", message: str = "", said: Said | None = None,
               staged: bool = False) -> Job:
    """A new job in the caller's transaction (queued, or staged until its data is on disk)."""
    job = Job(kind=kind, owner_id=owner_id, kb_id=kb_id, file_id=file_id, payload=payload or {}, blob=blob,
              state="staged" if staged else "queued", message=said.text if said else message,
              message_key=said.key if said else None, message_params=dict(said.params) if said else None,
              pid=os.getpid(), host=HOST)
    session.add(job)
    return job


def enqueue(db: Database, **fields) -> Job:
    with db.write() as s:
        return enqueue_in(s, **fields)


def publish(db: Database, job_ids: list[str]) -> None:
    """Staged jobs become claimable (their uploads are written and synced)."""
    if not job_ids:
        return
    with db.write() as s:
        for job in s.exec(select(Job).where(Job.id.in_(job_ids), Job.state == "staged")).all():
            job.state, job.updated_at = "queued", utcnow()
            s.add(job)


def _locked(query, db: Database):
    return query if db.is_sqlite else query.with_for_update(skip_locked=True)


def claim(db: Database, worker_id: str, *, lease_seconds: float, batch_files: int = 1,
          kinds: tuple[str, ...] | None = None) -> list[Job]:
    """Take the oldest queued job (and, for an upload, more queued uploads of the same knowledge
    base and owner, up to ``batch_files``, embedded together); [] when nothing waits."""
    now = utcnow()
    due = Job.lease_until.is_(None) | (Job.lease_until <= now)  # a job tried again waits out its pause
    with db.write() as s:
        first_q = select(Job).where(Job.state == "queued", due).order_by(Job.created_at, Job.id).limit(1)
        if kinds:
            first_q = first_q.where(Job.kind.in_(kinds))
        first = s.exec(_locked(first_q, db)).first()
        if first is None:
            return []
        taken = [first]
        if first.kind in BATCHED_KINDS and batch_files > 1:
            more_q = (select(Job).where(Job.state == "queued", due, Job.kind == first.kind, Job.kb_id == first.kb_id,
                                        Job.owner_id == first.owner_id, Job.id != first.id)
                      .order_by(Job.created_at, Job.id).limit(batch_files - 1))
            taken += list(s.exec(_locked(more_q, db)).all())
        for job in taken:
            job.state, job.worker_id, job.attempts = "running", worker_id, job.attempts + 1
            job.lease_until = now + timedelta(seconds=lease_seconds)
            job.started_at = job.updated_at = now
            job.pid, job.host = os.getpid(), HOST
            s.add(job)
        return taken


def heartbeat(db: Database, worker_ids: list[str], lease_seconds: float) -> set[str]:
    """Push the lease of every running job these workers hold into the future; the ids held."""
    if not worker_ids:
        return set()
    until = utcnow() + timedelta(seconds=lease_seconds)
    with db.write() as s:
        jobs = s.exec(select(Job).where(Job.worker_id.in_(worker_ids), Job.state == "running")).all()
        for job in jobs:
            job.lease_until = until
            s.add(job)
        return {j.id for j in jobs}


def _worker_gone(job: Job, now: datetime) -> str:
    """Why a running job's worker is taken for dead ("" while it is alive)."""
    if job.host == HOST and job.pid and not process_alive(job.pid):
        return f"its worker (process {job.pid} on {HOST}) stopped"
    lease = aware(job.lease_until)
    if lease is not None and lease < now:
        return f"its worker ({job.worker_id}) sent no heartbeat within its lease"
    return ""


def release_dead(db: Database, max_attempts: int) -> list[str]:
    """Queue again (or, after ``max_attempts`` claims, fail with the reason) every running job
    whose worker is gone; the ids released. Jobs run outside the queue (no worker) are left to
    ``core.ingest.jobs.mark_abandoned``. A staged job whose writer died is dropped."""
    now = utcnow()
    released = []
    with db.write() as s:
        running = s.exec(select(Job).where(Job.state == "running", Job.worker_id.is_not(None))).all()
        for job in running:
            why = _worker_gone(job, now)
            if not why:
                continue
            if job.attempts >= max_attempts:
                job.state, job.finished_at = "failed", now
                job.error = f"{why}, {job.attempts} time(s) (jobs.max_attempts = {max_attempts}); not tried again"
            else:
                job.state, job.worker_id, job.lease_until = "queued", None, None
                job.message = f"queued again: {why}"
                job.message_key = job.message_params = None
            job.updated_at = now
            s.add(job)
            released.append(job.id)
        for job in s.exec(select(Job).where(Job.state == "staged")).all():
            if job.host == HOST and not process_alive(job.pid):
                s.delete(job)  # its upload never finished: nobody was told it was queued
    return released


def close(db: Database, job_id: str, worker_id: str, state: str, *, result: dict | None = None,
          error: str = "", message: str = "") -> bool:
    """End a job this worker holds with its outcome; False when another worker holds it now
    (this one stalled past its lease): then nothing is written."""
    with db.write() as s:
        job = s.get(Job, job_id)
        if job is None or job.worker_id != worker_id:
            return False
        if job.state in ("queued", "running"):  # the work itself may have closed it already
            job.state = state
        if error and not job.error:
            job.error = error
        if message and job.state == state and not job.message:
            job.message = message
        job.result, job.finished_at = result, utcnow()
        job.updated_at = job.finished_at
        s.add(job)
        _LOCAL_CANCEL_EVENTS.pop(job_id, None)
        return True


def requeue(db: Database, job_id: str, worker_id: str, why: str) -> bool:
    """Put a job this worker holds back in the queue, as if never claimed (its process is
    stopping: it asked the job to stop at its next step). False when another worker holds it, or
    when someone asked to cancel it meanwhile (then it ends cancelled)."""
    with db.write() as s:
        job = s.get(Job, job_id)
        if job is None or job.worker_id != worker_id or job.cancel_requested:
            return False
        job.state, job.worker_id, job.lease_until, job.finished_at = "queued", None, None, None
        job.attempts = max(0, job.attempts - 1)  # a stop this process chose is not a failed attempt
        job.result, job.error = None, ""
        job.message, job.message_key, job.message_params = f"queued again: {why}", None, None
        job.updated_at = utcnow()
        s.add(job)
    _LOCAL_CANCEL_EVENTS.pop(job_id, None)
    return True


RETRY_FIRST_SECONDS = 5.0
RETRY_MAX_SECONDS = 300.0


def retry_pause(attempts: int) -> float:
    """Seconds before another try after ``attempts`` tries: 5, 10, 20, ... at most 5 minutes."""
    return min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** max(0, attempts - 1))


def retry_later(db: Database, job_id: str, worker_id: str, max_attempts: int, error: str, *,
                result: dict | None = None) -> bool:
    """A job this worker holds that failed on something passing: queued again after a pause while
    it has attempts left (True), else failed for good, saying how often it was tried (False)."""
    now = utcnow()
    with db.write() as s:
        job = s.get(Job, job_id)
        if job is None or job.worker_id != worker_id:
            return False
        if job.attempts < max_attempts and not job.cancel_requested:
            pause = retry_pause(job.attempts)
            job.state, job.worker_id, job.finished_at, job.result = "queued", None, None, None
            job.lease_until = now + timedelta(seconds=pause)  # not claimed before then
            job.error = ""
            job.message = (f"{error.rstrip('.')}; trying again in {pause:.0f} s "
                           f"(attempt {job.attempts} of {max_attempts})")
            job.message_key = job.message_params = None
            job.updated_at = now
            s.add(job)
            retried = True
        else:
            job.state, job.result, job.finished_at = "failed", result, now
            job.error = (f"{error.rstrip('.')}; failed after {job.attempts} attempts "
                         f"(jobs.max_attempts = {max_attempts})")
            job.updated_at = now
            s.add(job)
            retried = False
    _LOCAL_CANCEL_EVENTS.pop(job_id, None)
    return retried


def interrupt_local(job_ids: list[str]) -> None:
    """Ask jobs running in this process to stop at their next step (the same signal as a cancel,
    which their worker then turns into a re-queue)."""
    for job_id in job_ids:
        _LOCAL_CANCEL_EVENTS.setdefault(job_id, threading.Event()).set()


def cancel_requested(db: Database, job_id: str) -> bool:
    with db.read() as s:
        job = s.get(Job, job_id)
    return bool(job and job.cancel_requested)


def cancel(db: Database, actor: Actor, job_id: str) -> Job:
    """A waiting job ends now (cancelled); a running one is asked to stop at its next step (its
    worker reads the flag within 0.5 s, at once in this process)."""
    with db.write() as s:
        job = s.get(Job, job_id)
        if job is None or (not actor.is_admin and job.owner_id != actor.user_id):
            raise NotFound(f"job '{job_id}' not found")
        if job.state in WAITING:
            job.state, job.cancel_requested, job.error = "cancelled", True, "cancelled before it started"
            job.finished_at = job.updated_at = utcnow()
        elif job.state == "running":
            event = _LOCAL_CANCEL_EVENTS.get(job_id)
            if event is not None:
                event.set()
            job.cancel_requested, job.updated_at = True, utcnow()
        s.add(job)
        return job


def finished(job: Job, now: datetime | None = None) -> bool:
    """The job has ended and its worker has written its outcome (or can no longer write it)."""
    if job.state not in ENDED:
        return False
    if job.finished_at is not None or not job.worker_id:
        return True
    lease = aware(job.lease_until)
    return lease is None or lease < (now or utcnow())


def get(db: Database, actor: Actor, job_id: str) -> Job:
    with db.read() as s:
        job = s.get(Job, job_id)
    if job is None or (not actor.is_admin and job.owner_id != actor.user_id):
        raise NotFound(f"job '{job_id}' not found")
    return job


def wait(db: Database, actor: Actor, job_ids: list[str], timeout: float | None = None,
         poll: float = 0.25) -> tuple[list[Job], bool]:
    """The jobs once every one has finished, or at ``timeout``: (jobs, all finished)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for job_id in job_ids:
        get(db, actor, job_id)  # unknown or another user's: refused before waiting
    while True:
        with db.read() as s:
            jobs = list(s.exec(select(Job).where(Job.id.in_(job_ids))).all())
        order = {j: i for i, j in enumerate(job_ids)}
        jobs.sort(key=lambda j: order[j.id])
        if all(finished(j) for j in jobs):
            return jobs, True
        if deadline is not None and time.monotonic() >= deadline:
            return jobs, False
        time.sleep(poll)


def any_active(db: Database) -> bool:
    with db.read() as s:
        return s.exec(select(Job.id).where(Job.state.in_(["queued", "running"]), Job.worker_id.is_not(None)
                                           | (Job.state == "queued")).limit(1)).first() is not None
