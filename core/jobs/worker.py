"""Workers: threads that claim queued jobs and run them, with one heartbeat for all of them.

The process that holds the vector store runs a pool: the dashboard (threads beside the page
threads, ``jobs.dashboard_workers``), or ``python -m core worker`` (its own process, any number
of them against PostgreSQL and a Qdrant server). A worker takes one job (or one group of
uploads) at a time; between claims it frees the jobs of dead workers (queue.release_dead).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from core.embeddings._torch_threads import share_cores
from core.error_report import new_error_id
from core.errors import CoreError
from core.jobs import kinds, machine, queue

log = logging.getLogger(__name__)

THREAD_PREFIX = "ragdesk-worker"
IDLE_POLL_SECONDS = 0.5  # how soon a job queued by another process is seen


class WorkerPool:
    """``engine``: an opened ``core.Engine`` (store, database, settings). ``until_idle``: each
    worker stops once nothing is queued or running anywhere (scripts, CI)."""

    def __init__(self, engine, concurrency: int = 1, *, until_idle: bool = False, label: str = "w",
                 on_finished: Callable[[list[str]], None] | None = None):
        self.engine = engine
        self.until_idle = until_idle
        self.ids = [queue.new_worker_id(f"{label}{i + 1}") for i in range(max(1, concurrency))]
        self._on_finished = on_finished or (lambda ids: None)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads = [threading.Thread(target=self._loop, args=(wid,), name=f"{THREAD_PREFIX}-{i + 1}", daemon=True)
                         for i, wid in enumerate(self.ids)]
        self._beat = threading.Thread(target=self._heartbeat, name=f"{THREAD_PREFIX}-heartbeat", daemon=True)
        self.runs = 0  # jobs run by this pool (tests, logs)
        self._lock = threading.Lock()
        self._held: dict[str, list[str]] = {}  # worker id -> the jobs it runs now
        self._interrupted: set[str] = set()  # jobs asked to stop because this pool is stopping
        self._interrupting = False

    def start(self) -> "WorkerPool":
        machine.register()  # one more process whose jobs share this machine's cores
        for thread in self._threads:
            thread.start()
        self._beat.start()
        return self

    def wake(self) -> None:
        """Something was queued in this process: look now rather than at the next poll."""
        self._wake.set()

    def stop(self, wait: bool = True, *, interrupt: bool = False, grace: float | None = None) -> bool:
        """No new claims. A job already running is let finish; with ``interrupt`` it is asked to
        stop at its next step (a file, a page, an embedding call) and put back in the queue for
        the next worker, here or in another process. ``grace``: the longest wait for the
        threads. Whether every worker thread has ended."""
        self._stop.set()
        self._wake.set()
        if interrupt:
            with self._lock:
                self._interrupting = True
                held = [job_id for ids in self._held.values() for job_id in ids]
                self._interrupted.update(held)
            queue.interrupt_local(held)
        if wait:
            deadline = None if grace is None else time.monotonic() + grace
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            self._beat.join(timeout=5)
        if not self.alive:
            machine.unregister()
        return not self.alive

    def join(self) -> None:
        for thread in self._threads:
            thread.join()
        self._stop.set()
        self._beat.join(timeout=5)
        machine.unregister()

    @property
    def alive(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def _settings(self):
        return self.engine._settings().jobs

    def _heartbeat(self) -> None:
        while not self._stop.is_set():
            lease = self._settings().lease_seconds
            try:
                queue.heartbeat(self.engine._db, self.ids, lease)
            except CoreError as exc:  # the database briefly away: the next beat tries again
                log.warning("job heartbeat failed: %s", exc.message)
            self._stop.wait(max(1.0, lease / 3))

    def _loop(self, worker_id: str) -> None:
        while not self._stop.is_set():
            try:
                ran = self.step(worker_id)
            except Exception:  # a database outage or a bug between jobs: the worker keeps going
                log.exception("job worker %s: error between jobs (error id %s)", worker_id, new_error_id())
                ran = False
            if ran:
                continue
            if self.until_idle and not queue.any_active(self.engine._db):
                return
            self._wake.wait(IDLE_POLL_SECONDS)
            self._wake.clear()

    def step(self, worker_id: str) -> bool:
        """Claim and run one job (or one group of uploads); False when nothing was waiting."""
        settings = self._settings()
        db = self.engine._db
        queue.release_dead(db, settings.max_attempts)
        if self._stop.is_set():
            return False
        jobs = queue.claim(db, worker_id, lease_seconds=settings.lease_seconds, batch_files=settings.ingest_batch_files)
        if not jobs:
            return False
        try:  # the local models' threads: this process's share of the cores now
            share_cores(machine.worker_processes())
        except Exception:  # never strands the jobs just claimed; they run with the threads as they are
            log.exception("could not size the local models' threads")
        with self._lock:
            self._held[worker_id] = [j.id for j in jobs]
            if self._interrupting:  # claimed while an interrupting stop began
                self._interrupted.update(self._held[worker_id])
                queue.interrupt_local(self._held[worker_id])
        ended: set[str] = set()

        def end(job_id: str, outcome: kinds.Outcome) -> None:
            """Close one job as soon as its outcome is known (a file of a group, not the whole group)."""
            try:
                self._end(db, job_id, worker_id, outcome)
            except CoreError as exc:  # the database briefly away: closed with the rest of its group
                log.warning("closing job %s failed (%s); it is closed with its group", job_id, exc.message)
                return
            ended.add(job_id)
            self._on_finished([job_id])

        try:
            outcomes = _run(self.engine, jobs, end)
            for job, outcome in zip(jobs, outcomes):
                if job.id not in ended:
                    self._end(db, job.id, worker_id, outcome)
        finally:
            with self._lock:
                self._held.pop(worker_id, None)
        self.runs += len(jobs)
        self._on_finished([j.id for j in jobs])
        return True

    def _end(self, db, job_id: str, worker_id: str, outcome: kinds.Outcome) -> None:
        if (job_id in self._interrupted and outcome.state == "cancelled"
                and queue.requeue(db, job_id, worker_id, "its worker was stopping (a restart or a shutdown)")):
            log.info("job %s queued again: its worker is stopping", job_id)
            return
        if outcome.state == "failed" and outcome.retryable:  # a server away for a while: try again later
            if queue.retry_later(db, job_id, worker_id, self._settings().max_attempts, outcome.error,
                                 result=outcome.result):
                log.warning("job %s queued again after a passing failure: %s", job_id, outcome.error)
            return
        queue.close(db, job_id, worker_id, outcome.state, result=outcome.result, error=outcome.error,
                    message=outcome.message)


def _run(engine, jobs, on_outcome: kinds.OnOutcome) -> list[kinds.Outcome]:
    try:
        return kinds.kind(jobs[0].kind).run(engine, jobs, on_outcome)
    except CoreError as exc:
        return [kinds.Outcome("failed", result=kinds.raised(exc), error=exc.message, retryable=exc.retryable)
                for _ in jobs]
    except Exception:  # a bug: the jobs fail with an error id; the log has the traceback
        error_id = new_error_id()
        log.exception("%s job failed (error id %s)", jobs[0].kind, error_id)
        failure = CoreError(f"stopped by an unexpected error (error id {error_id})")
        return [kinds.Outcome("failed", result=kinds.raised(failure), error=failure.message) for _ in jobs]


def wait_until_idle(engine, timeout: float = 60.0) -> bool:
    """Whether the queue emptied within ``timeout`` (tests and scripts)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not queue.any_active(engine._db):
            return True
        time.sleep(0.1)
    return False
