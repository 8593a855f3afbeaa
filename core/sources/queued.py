"""A sync or an import as a queued job: its outcome from the sync's report, and the report read
back from the finished row (the ``Future``'s value). The handlers are the source and Drive
services' (core/services/sources.py, core/gdrive/drive_service.py)."""

from __future__ import annotations

from core.db.models import Job
from core.jobs.kinds import Outcome, known_fields, reraise
from core.sources.report import ItemResult, SyncReport


def report_outcome(report: SyncReport) -> Outcome:
    state = report.status if report.status in ("done", "cancelled") else "failed"
    return Outcome(state, result=report.as_dict(), error=report.error)


def decode_report(jobs: list[Job]) -> SyncReport:
    [job] = jobs
    reraise(job)
    data = dict(job.result or {})
    report = known_fields(SyncReport, data | {"results": []}) if data else SyncReport(
        (job.payload or {}).get("source_id", ""), "", job.state, error=job.error)
    report.results = [known_fields(ItemResult, r) for r in data.get("results", [])]
    return report
