"""The job queue seen by callers (list, wait, cancel) and the storage doctor."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import asdict

from core import doctor as doctor_mod
from core.services.outputs import JobOut
from core.db.models import Job
from core.doctor import DoctorReport
from core.ingest import jobs as jobs_mod
from core.ingest import service as ingest_mod
from core.accounts.access import require_admin
from core.jobs import queue as job_queue
from core.jobs.kinds import OnOutcome, Outcome, known_fields, owner_of, reraise
from core.jobs.submit import enqueue_one
from core.services.declare import Http, Remote, job_kind, operation
from core.services.runtime import Runtime
from core.types import SYSTEM_ACTOR, Actor


def _doctor_remote(engine, args: dict) -> DoctorReport:
    # a repair handed to the dashboard runs on its queue; a check is quick and runs as it is
    return engine.submit_repair(SYSTEM_ACTOR).result() if args.get("repair") else engine.doctor(SYSTEM_ACTOR)


def decode_repair(jobs: list[Job]) -> DoctorReport:
    [job] = jobs
    reraise(job)
    return known_fields(DoctorReport, job.result or {})


TAG = "jobs"


class JobService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    @operation(http=Http("GET", "/api/v1/jobs/{job_id}", name="get_job", out=JobOut, tag=TAG,
                         summary="One job's state and progress"))
    def job(self, actor: Actor, job_id: str) -> Job:
        return job_queue.get(self._rt.db, actor, job_id)

    @operation()
    def wait_jobs(self, actor: Actor, job_ids: list[str], timeout: float | None = None) -> tuple[list[Job], bool]:
        """The jobs once all have finished or at ``timeout``: (jobs, all finished)."""
        return job_queue.wait(self._rt.db, actor, job_ids, timeout)

    @operation(http=Http("GET", "/api/v1/jobs", name="list_jobs", params=("active_only",), out=list[JobOut], tag=TAG,
                         summary="Your ingest and reindex jobs, newest first (admins: everyone's)"))
    def jobs(self, actor: Actor, ids: list[str] | None = None, active_only: bool = False) -> list[Job]:
        return jobs_mod.list_jobs(self._rt.db, actor, ids=ids, active_only=active_only)

    @operation(http=Http("POST", "/api/v1/jobs/{job_id}/cancel", out=JobOut, tag=TAG,
                         summary="Ask a running job to stop (it stops at its next step)"))
    def cancel_job(self, actor: Actor, job_id: str) -> Job:
        """A queued job ends at once; a running one stops at its next step (within a second)."""
        job = job_queue.cancel(self._rt.db, actor, job_id)
        if job.state == "cancelled" and job.blob:
            ingest_mod.drop_unused_original(self._rt.parts, job.blob)
        return job

    @operation(access="admin", admin_does="run the storage doctor", job=True)
    def submit_repair(self, actor: Actor) -> Future:
        """The doctor's repair as a queued job (its Future gives the DoctorReport)."""
        return self._rt.queued([enqueue_one(self._rt.db, actor, "repair")])

    @operation(access="admin", admin_does="run the storage doctor", handoff=Remote(run=_doctor_remote))
    def doctor(self, actor: Actor, repair: bool = False) -> DoctorReport:
        return doctor_mod.run_doctor(self._rt.parts, self._rt.snapshot(), actor, repair)

    @job_kind("repair", decode=decode_repair)
    def run_repair_job(self, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
        [job] = jobs
        actor = owner_of(self._rt.db, job)
        require_admin(actor, "run the storage doctor")  # still an admin when the job runs, as engine.doctor checks
        return [Outcome("done", result=asdict(self.doctor(actor, repair=True)))]
