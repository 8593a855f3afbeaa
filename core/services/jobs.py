"""The job queue seen by callers (list, wait, cancel) and the storage doctor."""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import asdict

from core import doctor as doctor_mod
from core.services.cli_groups import DOCTOR_HELP, JOBS
from core.services.outputs import DoctorOut, JobDetail, JobOut, JobRow, JobsWaited
from core.db.models import Job
from core.doctor import DoctorReport
from core.ingest import jobs as jobs_mod
from core.ingest import service as ingest_mod
from core.accounts.access import require_admin
from core.jobs import queue as job_queue
from core.jobs.kinds import OnOutcome, Outcome, known_fields, owner_of, reraise
from core.jobs.submit import enqueue_one
from core.services.declare import Arg, Cli, Http, Remote, job_kind, operation
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


def _doctor_text(report: dict) -> str:
    """``doctor`` without --json: one line when healthy, else the whole report."""
    return ("healthy: the database and the vector store agree" if report["healthy"]
            else json.dumps(report, indent=2))


def _doctor_exit(report: dict) -> int:
    """``doctor``: 0 healthy or repaired, 1 something disagrees (a check, not a repair)."""
    return 0 if report["healthy"] or report["repaired"] else 1


def job_row(j: Job) -> dict:
    """A job as ``jobs list``, ``wait`` and ``cancel`` print it (JobRow)."""
    return {"id": j.id, "kind": j.kind, "state": j.state, "kb_id": j.kb_id, "done": j.progress_done,
            "total": j.progress_total, "message": j.message, "error": j.error, "updated_at": j.updated_at}


def job_detail(j: Job) -> dict:
    """A job as ``jobs show`` prints it (JobDetail)."""
    return dict(job_row(j), name=(j.payload or {}).get("name", ""), file_id=j.file_id, attempts=j.attempts,
                worker_id=j.worker_id, cancel_requested=j.cancel_requested, created_at=j.created_at,
                started_at=j.started_at, finished_at=j.finished_at, result=j.result)


def _line(r: dict) -> str:
    return (f"{r['id']}  {r['kind']:<8} {r['state']:<10} {r['done']}/{r['total']}  {r['message']}".rstrip()
            + (f"  — {r['error']}" if r["error"] else ""))


def _waited_exit(printed: dict) -> int:
    """``jobs wait``: 0 all done, 1 some failed or cancelled, 2 timed out."""
    if not printed["finished"]:
        return 2
    return 0 if all(j["state"] == "done" for j in printed["jobs"]) else 1


class JobService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    # list, show, wait, cancel: the CLI's jobs group, in this order (core/cli/derived.py); they need the
    # database and the blob folder only (Cli(store=False)): the CLI runs them beside any process
    # holding the embedded store, a worker that takes no hand-offs included
    @operation(http=Http("GET", "/api/v1/jobs", name="list_jobs", params=("active_only",), out=list[JobOut], tag=TAG,
                         summary="Your ingest and reindex jobs, newest first (admins: everyone's)"),
               cli=Cli("list", group=JOBS, store=False, params=("active_only",), out=list[JobRow],
                       args={"active_only": Arg(flag="--active", help="only queued and running jobs")},
                       reply=lambda _, jobs: [job_row(j) for j in jobs],
                       human=lambda rs: "\n".join(map(_line, rs)) or "no jobs"))
    def jobs(self, actor: Actor, ids: list[str] | None = None, active_only: bool = False) -> list[Job]:
        return jobs_mod.list_jobs(self._rt.db, actor, ids=ids, active_only=active_only)

    @operation(http=Http("GET", "/api/v1/jobs/{job_id}", name="get_job", out=JobOut, tag=TAG,
                         summary="One job's state and progress"),
               cli=Cli("show", group=JOBS, store=False, out=JobDetail, reply=lambda _, job: job_detail(job),
                       human=lambda r: _line(r) + f"\n  attempts {r['attempts']}, worker {r['worker_id'] or '-'}"))
    def job(self, actor: Actor, job_id: str) -> Job:
        return job_queue.get(self._rt.db, actor, job_id)

    @operation(cli=Cli("wait", group=JOBS, store=False, out=JobsWaited, exit=_waited_exit,
                       help="until the jobs have finished (exit 0 all done, 1 some not, 2 timed out)",
                       args={"timeout": Arg(metavar="SECONDS")},
                       reply=lambda _, waited: {"finished": waited[1], "jobs": [job_row(j) for j in waited[0]]},
                       human=lambda r: "\n".join(map(_line, r["jobs"])) + ("" if r["finished"] else "\n(timed out; still going)")))
    def wait_jobs(self, actor: Actor, job_ids: list[str], timeout: float | None = None) -> tuple[list[Job], bool]:
        # the jobs once all have finished or at ``timeout``: (jobs, all finished)
        return job_queue.wait(self._rt.db, actor, job_ids, timeout)

    @operation(http=Http("POST", "/api/v1/jobs/{job_id}/cancel", out=JobOut, tag=TAG,
                         summary="Ask a running job to stop (it stops at its next step)"),
               cli=Cli("cancel", group=JOBS, store=False, out=JobRow, reply=lambda _, job: job_row(job),
                       human=lambda r: f"cancel requested for {r['kind']} job {r['id']} ({r['state']})"))
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

    @operation(access="admin", admin_does="run the storage doctor", handoff=Remote(run=_doctor_remote),
               cli=Cli("doctor", help=DOCTOR_HELP, out=DoctorOut, human=_doctor_text, exit=_doctor_exit))
    def doctor(self, actor: Actor, repair: bool = False) -> DoctorReport:
        return doctor_mod.run_doctor(self._rt.parts, self._rt.snapshot(), actor, repair)

    @job_kind("repair", decode=decode_repair)
    def run_repair_job(self, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
        [job] = jobs
        actor = owner_of(self._rt.db, job)
        require_admin(actor, "run the storage doctor")  # still an admin when the job runs, as engine.doctor checks
        return [Outcome("done", result=asdict(self.doctor(actor, repair=True)))]
