"""An error raised inside a queued job comes back to whoever waits as its own class (issue 34):
a queued sync of a source whose sync is running raises SyncBusy (core/sources/base.py) — exit 20
on the CLI, 409 ``sync_busy`` on the HTTP API — not a plain CoreError (exit 1, 500). Real engine
(embedded Qdrant, SQLite), real queue workers, the real hand-off socket."""

from __future__ import annotations

import json

import pytest

from core.api.errors import error_response
from core.cli.main import main
from core.errors import CoreError
from core.handoff.channel import HandoffServer
from core.sources import lease
from core.sources import service as sources
from core.sources.base import SyncBusy
from core.types import SYSTEM_ACTOR as A
from tests.engine.conftest import make_engine


@pytest.fixture
def engine(data_dir, monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)
    e = make_engine(data_dir)
    yield e
    e.close()


def _busy_source(engine) -> str:
    """A web-pages source whose sync holds its lease (another sync of it is running)."""
    engine.create_kb(A, "web")
    row = sources.find_or_create(engine._parts, A, kind="web", kb_ref="web", config={"urls": []}, title="Notes",
                                 watch=False)
    return row.id


def test_a_queued_sync_of_a_busy_source_raises_sync_busy_409(engine):
    source_id = _busy_source(engine)
    with lease.Lease(engine._db, source_id):
        future = engine.submit_sync_source(A, source_id)
        with pytest.raises(CoreError) as caught:
            future.result(timeout=120)
    exc = caught.value
    assert type(exc) is SyncBusy and exc.exit_code == 20, (type(exc).__name__, exc.message)
    assert "already running" in exc.message
    [job_id] = future.job_ids
    assert engine.job(A, job_id).worker_id in engine._workers.ids  # it ran on a queue worker
    reply = error_response(exc)  # what the HTTP API's CoreError handler answers with (core/api/app.py)
    assert reply.status_code == 409
    assert json.loads(reply.body) == {"error": {"code": "sync_busy", "message": exc.message}}


def test_the_cli_handed_off_to_the_dashboard_exits_20_for_a_busy_source(engine, data_dir, capsys):
    """``sources sync`` beside a running dashboard is handed off and runs as a queued job there
    (the operation's queued twin): its SyncBusy crosses the queue and then the socket."""
    source_id = _busy_source(engine)
    server = HandoffServer(engine, data_dir)
    try:
        with lease.Lease(engine._db, source_id):
            code = main(["--data-dir", str(data_dir), "--json", "sources", "sync", source_id])
    finally:
        server.close()
    out, err = capsys.readouterr()
    assert "hand-off" in err, err
    error = json.loads(err.strip().splitlines()[-1])
    assert (code, error["kind"]) == (20, "SyncBusy"), err
    assert "already running" in error["error"] and out == ""
