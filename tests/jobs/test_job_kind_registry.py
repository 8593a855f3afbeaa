"""Services declare their job kinds (issue 34): each kind's handler is a method of the service that
owns the work (``@job_kind``), registered with the queue when the services are collected, and the
queue's workers and Futures read that registry only — no hand list reaching into the engine's
private attributes. A kind registered by other code (a plugin's) runs on the same workers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.errors import CoreError
from core.jobs import kinds
from core.jobs.submit import enqueue_one
from core.operations import JOB_KINDS, PLUGIN_SERVICES, SERVICES
from core.services.declare import job_kind, job_kinds_of
from core.services.facade import register_job_kinds
from core.sources.base import SyncBusy
from core.types import SYSTEM_ACTOR as A
from tests.engine.conftest import make_engine

REPO = Path(__file__).resolve().parents[2]


def test_every_kind_is_a_service_method_the_services_declare():
    services = {**SERVICES, **PLUGIN_SERVICES}  # Google Drive's service is a (built-in) plugin's
    declared = {k.name: k for attr, cls in services.items() for k in job_kinds_of(attr, cls)}
    assert set(declared) == {"ingest", "retry", "reindex", "sync", "gdrive_import", "repair"}
    assert set(JOB_KINDS) == set(declared) and all(kinds.KINDS[name] is JOB_KINDS[name] for name in declared)
    for name, k in declared.items():
        assert callable(getattr(services[k.service], k.method)), name
    assert (declared["sync"].service, declared["gdrive_import"].service, declared["repair"].service) == (
        "sources", "drive", "jobs")


def test_the_queue_reaches_into_no_private_attribute_of_the_engine():
    for path in [REPO / "core/jobs/kinds.py", REPO / "core/ingest/queued.py", REPO / "core/sources/queued.py"]:
        private = [n.attr for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "engine"
                   and n.attr.startswith("_")]
        assert not private, (path.name, private)


def test_a_kind_is_declared_once():
    class Twice:
        @job_kind("sync", decode=lambda jobs: None)
        def run_again(self, jobs, on_outcome=None):
            return []

    with pytest.raises(ValueError, match="registered twice"):
        register_job_kinds({"twice": Twice})
    assert kinds.KINDS["sync"] is JOB_KINDS["sync"]
    with pytest.raises(CoreError, match="unknown job kind 'no_such_kind'"):
        kinds.kind("no_such_kind")


def test_a_registered_kind_runs_on_the_queue_and_its_error_comes_back_as_its_class(data_dir, monkeypatch):
    """A kind added through the registration API (as a plugin adds one): a queue worker runs it and
    the waiting Future gets its value — or, when it raises, the error as its own class."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    seen = []

    def run(engine, jobs, on_outcome=None):
        seen.append([j.id for j in jobs])
        if (jobs[0].payload or {}).get("busy"):
            raise SyncBusy("a toy run is already going")
        return [kinds.Outcome("done", result={"echo": jobs[0].payload["word"]})]

    kinds.register(kinds.Kind("toy_echo", run, lambda jobs: (kinds.reraise(jobs[0]), jobs[0].result["echo"])[1]))
    try:
        with make_engine(data_dir) as engine:
            ok = engine.runtime.queued([enqueue_one(engine._db, A, "toy_echo", payload={"word": "heron"})])
            assert ok.result(timeout=60) == "heron"
            busy = engine.runtime.queued([enqueue_one(engine._db, A, "toy_echo", payload={"word": "x", "busy": True})])
            with pytest.raises(SyncBusy, match="already going"):
                busy.result(timeout=60)
            jobs = [engine.job(A, j) for j in (*ok.job_ids, *busy.job_ids)]
            assert [j.state for j in jobs] == ["done", "failed"]
            assert all(j.worker_id in engine._workers.ids for j in jobs) and len(seen) == 2
    finally:
        kinds.KINDS.pop("toy_echo", None)
