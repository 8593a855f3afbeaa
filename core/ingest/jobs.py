"""Job rows: progress that any process can read, and cancel requests any process can make."""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Callable

from sqlmodel import select

from core.db.database import Database
from core.db.models import Job, utcnow
from core.db.rows import insert_rows, row_values, update_rows
from core.errors import NotFound
from core.messages import Said
from core.types import Actor

HOST = socket.gethostname()
_PROGRESS_INTERVAL = 0.5  # seconds between progress writes: enough for a progress bar
# Jobs running in this process: a cancel from another session here takes effect at once;
# one from another process is seen through the database within _PROGRESS_INTERVAL.
_LOCAL_CANCEL_EVENTS: dict[str, threading.Event] = {}


def process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class JobTracker:
    """Writes one job's progress (throttled) and answers 'was I asked to stop?'."""

    def __init__(self, db: Database, job_id: str, cancel_event: threading.Event | None = None):
        self.db = db
        self.job_id = job_id
        self._cancel_event = cancel_event or _LOCAL_CANCEL_EVENTS.setdefault(job_id, threading.Event())
        # Work that finishes within one interval writes no progress rows at all (many small
        # files): the job's start and finish rows say everything there is to say.
        self._last_write = self._last_cancel_check = time.monotonic()
        self._cancelled = False

    @classmethod
    def start(cls, db: Database, *, kind: str, actor: Actor, kb_id: str | None, file_id: str | None, message: str = "",
              said: Said | None = None) -> "JobTracker":
        with db.write() as s:
            return cls.start_in(db, s, kind=kind, actor=actor, kb_id=kb_id, file_id=file_id, message=message, said=said)

    @classmethod
    def start_in(cls, db: Database, session, *, kind: str, actor: Actor, kb_id: str | None, file_id: str | None,
                 message: str = "", said: Said | None = None) -> "JobTracker":
        """The job row in the caller's transaction (one commit for a file row and its job).
        ``said``: the message as a key and values (its English text is the message)."""
        job = Job(kind=kind, owner_id=actor.user_id, kb_id=kb_id, file_id=file_id, state="running",
                  message=said.text if said else message, pid=os.getpid(), host=HOST)
        _set_said(job, said)
        session.add(job)
        return cls(db, job.id)

    @classmethod
    def start_many_in(cls, db: Database, session, *, kind: str, actor: Actor, kb_id: str | None,
                      files: list[tuple[str, Said]]) -> list["JobTracker"]:
        """A running job for each (file id, message) in the caller's transaction, one INSERT for
        all of them (a block of small files): the rows ``start_in`` would add, one by one."""
        rows = [row_values(Job, kind=kind, owner_id=actor.user_id, kb_id=kb_id, file_id=file_id, state="running",
                           message=said.text, message_key=said.key, message_params=dict(said.params),
                           pid=os.getpid(), host=HOST) for file_id, said in files]
        insert_rows(session, Job, rows)
        return [cls(db, row["id"]) for row in rows]

    @classmethod
    def adopt_in(cls, db: Database, session, job_id: str, *, file_id: str | None = None, message: str = "",
                 said: Said | None = None, job: Job | None = None) -> "JobTracker":
        """Track a queued job a worker has claimed (core/jobs/) instead of a new row: it learns
        its file in the caller's transaction (one commit for the file row and its job).
        ``job``: its row when the caller has read it already (many at once)."""
        job = job if job is not None else session.get(Job, job_id)
        if job is None:
            raise NotFound(f"job '{job_id}' not found")
        if file_id is not None:
            job.file_id = file_id
        job.message = said.text if said else (message or job.message)
        _set_said(job, said)
        job.updated_at = utcnow()
        session.add(job)
        return cls(db, job_id)

    def progress(self, done: int, total: int, message: str, said: Said | None = None) -> None:
        now = time.monotonic()
        if now - self._last_write < _PROGRESS_INTERVAL:
            return
        self._last_write = now
        with self.db.write() as s:
            job = s.get(Job, self.job_id)
            if job is not None:
                job.progress_done, job.progress_total, job.message = done, total, message
                _set_said(job, said)
                job.updated_at = utcnow()
                s.add(job)

    def due(self) -> bool:
        """Whether a progress write is due (the same throttle as ``progress``)."""
        return time.monotonic() - self._last_write >= _PROGRESS_INTERVAL

    def should_cancel(self) -> bool:
        if self._cancelled or self._cancel_event.is_set():
            return True
        now = time.monotonic()
        if now - self._last_cancel_check >= _PROGRESS_INTERVAL:
            self._last_cancel_check = now
            with self.db.read() as s:
                job = s.get(Job, self.job_id)
                self._cancelled = bool(job and job.cancel_requested)
        return self._cancelled

    def finish(self, state: str, message: str = "", error: str = "", *, total: int | None = None,
               said: Said | None = None) -> None:
        with self.db.write() as s:
            self.finish_in(s, state, message, error, total=total, said=said)

    def finish_in(self, session, state: str, message: str = "", error: str = "", *, total: int | None = None,
                  said: Said | None = None, job: Job | None = None) -> None:
        """Close the job in the caller's transaction. ``job``: its row when the caller has read
        it already (many at once)."""
        _LOCAL_CANCEL_EVENTS.pop(self.job_id, None)
        job = job if job is not None else session.get(Job, self.job_id)
        if job is not None:
            job.state, job.error = state, error
            if said:
                message = said.text
            if message:
                job.message = message
                _set_said(job, said)
            if total is not None:
                job.progress_total = total
            if state == "done":
                job.progress_done = job.progress_total
            job.updated_at = utcnow()
            session.add(job)


def finish_done_many_in(session, finished: list[tuple[JobTracker, Said, int]]) -> None:
    """Close many jobs as done — (tracker, message, total) each: what ``finish_in(session, "done",
    said=message, total=total)`` writes — in the caller's transaction, one UPDATE for all (the
    files of a group)."""
    now = utcnow()
    for tracker, _, _ in finished:
        _LOCAL_CANCEL_EVENTS.pop(tracker.job_id, None)
    update_rows(session, Job, [dict(id=tracker.job_id, state="done", error="", message=said.text, message_key=said.key,
                                    message_params=dict(said.params), progress_total=total, progress_done=total,
                                    updated_at=now) for tracker, said, total in finished])


def _set_said(job: Job, said: Said | None) -> None:
    """The job's message key and values beside its English message (cleared for a plain message)."""
    job.message_key, job.message_params = (said.key, dict(said.params)) if said else (None, None)


def progress_many(db: Database, updates: list[tuple[JobTracker, int, int, str]], said: Said | None = None) -> None:
    """Progress of many jobs (the files of one ingest batch) in one transaction; each job keeps
    its own throttle, and nothing is written when none is due. ``said``: the message as a key
    (the same for all of them), else a plain message."""
    due = [(t, done, total, message) for t, done, total, message in updates if t.due()]
    if not due:
        return
    now = time.monotonic()
    with db.write() as s:
        rows = {j.id: j for j in s.exec(select(Job).where(Job.id.in_([t.job_id for t, _, _, _ in due])))}
        for tracker, done, total, message in due:
            tracker._last_write = now
            job = rows.get(tracker.job_id)
            if job is not None:
                job.progress_done, job.progress_total, job.message = done, total, message
                _set_said(job, said)  # a plain message clears any key left over from an earlier one
                job.updated_at = utcnow()
                s.add(job)


def cancelled_many(db: Database, trackers: list[JobTracker]) -> set[str]:
    """Job ids among ``trackers`` asked to stop: local events at once, the database (one query
    for all of them) at most every _PROGRESS_INTERVAL per job."""
    stopped = {t.job_id for t in trackers if t._cancelled or t._cancel_event.is_set()}
    now = time.monotonic()
    ask = [t for t in trackers if t.job_id not in stopped and now - t._last_cancel_check >= _PROGRESS_INTERVAL]
    if ask:
        with db.read() as s:
            flagged = set(s.exec(select(Job.id).where(Job.id.in_([t.job_id for t in ask]), Job.cancel_requested)))
        for tracker in ask:
            tracker._last_cancel_check = now
            tracker._cancelled = tracker.job_id in flagged
        stopped |= flagged
    return stopped


def request_cancel(db: Database, actor: Actor, job_id: str) -> Job:
    with db.write() as s:
        job = s.get(Job, job_id)
        if job is None or (not actor.is_admin and job.owner_id != actor.user_id):
            raise NotFound(f"job '{job_id}' not found")
        if job.state in ("queued", "running"):
            event = _LOCAL_CANCEL_EVENTS.get(job_id)
            if event is not None:
                event.set()
            job.cancel_requested = True
            job.updated_at = utcnow()
            s.add(job)
        return job


def cancel_file_jobs(db: Database, file_id: str) -> int:
    """Ask every unfinished job of one file to stop (the file is being deleted); how many were asked.
    The caller has checked that the actor may change the file."""
    with db.write() as s:
        jobs = list(s.exec(select(Job).where(Job.file_id == file_id, Job.state.in_(["queued", "running"]))))
        for job in jobs:
            event = _LOCAL_CANCEL_EVENTS.get(job.id)
            if event is not None:
                event.set()
            job.cancel_requested, job.updated_at = True, utcnow()
            s.add(job)
    return len(jobs)


def list_jobs(db: Database, actor: Actor, *, ids: list[str] | None = None, active_only: bool = False, limit: int = 50) -> list[Job]:
    with db.read() as s:
        q = select(Job).order_by(Job.created_at.desc()).limit(limit)
        if ids:
            q = q.where(Job.id.in_(ids))
        if active_only:
            q = q.where(Job.state.in_(["queued", "running"]))
        if not actor.is_admin:
            q = q.where(Job.owner_id == actor.user_id)
        return list(s.exec(q))


def abandoned(job: Job) -> bool:
    """A running job whose process is gone (killed, crashed, machine restarted). A queued job
    waits in the queue for any worker: never abandoned."""
    if job.state != "running":
        return False
    # Another machine's job (shared PostgreSQL) can't be judged from here: leave it alone.
    return job.host == HOST and not process_alive(job.pid)


ProgressFn = Callable[[int, int, str], None]


INTERRUPTED = "interrupted: the process running it stopped; run it again"


def mark_abandoned(db: Database) -> list[str]:
    """Close every running job whose process on this machine is gone (run at start-up, and by
    the doctor's repair): it is marked failed as interrupted, so nothing waits on it. A job a
    queue worker held is the queue's to run again (core/jobs/queue.py ``release_dead``)."""
    closed = []
    with db.write() as s:
        for job in s.exec(select(Job).where(Job.state == "running", Job.worker_id.is_(None))).all():
            if abandoned(job):
                job.state, job.error, job.updated_at = "failed", INTERRUPTED, utcnow()
                s.add(job)
                closed.append(job.id)
    return closed
