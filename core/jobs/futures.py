"""``Future``s for queued jobs: what ``Engine.submit_*`` return, whichever process runs the job.

One watcher thread per engine reads the rows of the jobs it was asked about (a few short
queries a second, only while something is pending) and completes each Future when all its
jobs have finished, with the value the synchronous method would have returned (or its error).
A worker in this process nudges it, so the result shows at once.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future

from sqlmodel import select

from core.db.database import Database
from core.db.models import Job
from core.jobs import kinds, queue

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25


class JobFuture(Future):
    """A Future that also names its jobs (``job_ids``): their progress and Cancel are the queue's."""

    def __init__(self, job_ids: list[str]):
        super().__init__()
        self.job_ids = list(job_ids)


class JobWatcher:
    def __init__(self, db: Database):
        self._db = db
        self._pending: list[JobFuture] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None

    def watch(self, job_ids: list[str]) -> JobFuture:
        future = JobFuture(job_ids)
        future.set_running_or_notify_cancel()
        if not job_ids:
            future.set_result([])
            return future
        with self._lock:
            self._pending.append(future)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="ragdesk-job-watch", daemon=True)
                self._thread.start()
        self._wake.set()
        return future

    def nudge(self, _job_ids: list[str] | None = None) -> None:
        self._wake.set()

    def close(self) -> None:
        """Futures still pending end cancelled (their jobs stay queued in the database)."""
        self._closed = True
        self._wake.set()
        with self._lock:
            pending, self._pending = self._pending, []
        for future in pending:
            if not future.done():
                future.set_exception(RuntimeError("the engine closed before the job finished; "
                                                  "it stays in the queue (see 'jobs list')"))

    def _loop(self) -> None:
        while not self._closed:
            with self._lock:
                pending = list(self._pending)
            if not pending:
                self._wake.wait(1.0)
                self._wake.clear()
                with self._lock:
                    if not self._pending:
                        return
                continue
            try:
                self._check(pending)
            except Exception:  # the database briefly away: look again next round
                log.exception("reading queued jobs failed")
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()

    def _check(self, pending: list[JobFuture]) -> None:
        ids = {i for f in pending for i in f.job_ids}
        with self._db.read() as s:
            rows = {j.id: j for j in s.exec(select(Job).where(Job.id.in_(list(ids)))).all()}
        for future in pending:
            jobs = [rows.get(i) for i in future.job_ids]
            if any(j is None for j in jobs):
                self._settle(future, error=RuntimeError("a queued job's row is gone"))
            elif all(queue.finished(j) for j in jobs):
                try:
                    value = kinds.kind(jobs[0].kind).decode(jobs)
                except Exception as exc:  # the job's own error, raised to whoever waits
                    self._settle(future, error=exc)
                else:
                    self._settle(future, value=value)

    def _settle(self, future: JobFuture, value=None, error: BaseException | None = None) -> None:
        with self._lock:
            if future in self._pending:
                self._pending.remove(future)
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
