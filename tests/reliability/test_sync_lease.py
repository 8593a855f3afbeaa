"""The sync lease: a killed sync does not block the next one, a live one keeps its lease however
long a step takes, and one that lost its lease stops instead of running beside its successor."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.sources import lease
from core.sources.base import SyncBusy
from core.sources.models import SyncedSource
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import make_engine
from tests.parsers.http_fixtures import local_server

A = SYSTEM_ACTOR
REPO = Path(__file__).resolve().parents[2]


def page(text: str) -> bytes:
    return f"<html><body><article><h1>Note</h1><p>{text}</p></article></body></html>".encode()


def stalled_route(body: bytes, entered: threading.Event, release: threading.Event, on_hit: int = 1):
    """A route whose ``on_hit``-th request waits for ``release`` (the page of a slow site)."""
    hits = []

    def route(handler) -> None:
        hits.append(1)
        if len(hits) == on_hit:
            entered.set()
            release.wait(60)
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except OSError:
            pass  # the reader was killed meanwhile

    return route


@pytest.fixture
def clean_env(monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def test_a_killed_sync_does_not_block_the_next_one(data_dir, clean_env):
    entered, release = threading.Event(), threading.Event()
    with local_server() as srv:
        srv.serve("/a.html", page("The door code is 4711."), "text/html; charset=utf-8")
        with make_engine(data_dir, parsing={"url_allow_private": True}) as engine:
            engine.create_kb(A, "web")
            engine.watch_web_pages(A, "web", [srv.url("/a.html")])
            [row] = engine.sources(A)
        srv.routes["/a.html"] = stalled_route(page("The door code is 9000."), entered, release)
        script = textwrap.dedent(f"""
            from core.config import RuntimeConfig
            from core.engine import Engine
            from core.types import SYSTEM_ACTOR
            Engine(RuntimeConfig.from_env({str(data_dir)!r})).sync_source(SYSTEM_ACTOR, {row.id!r})
        """)
        proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            assert entered.wait(60), "the sync in the other process never read the page"
            proc.send_signal(signal.SIGKILL)  # killed mid-sync, holding the lease
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
            release.set()
        with Engine(RuntimeConfig.from_env(data_dir)) as engine:
            report = engine.sync_source(A, row.id)  # at once: the lease's holder is gone
            assert report.status == "done", report.error
            assert [r.action for r in report.results] == ["updated"]
            assert engine.jobs(A, active_only=True) == []  # the killed sync's job is closed as interrupted
            assert engine.doctor(A).healthy


def test_a_sync_that_lost_its_lease_stops_at_its_next_step(engine, clean_env):
    engine.save_settings(A, {"parsing": {"url_allow_private": True}})
    engine.create_kb(A, "web")
    entered, release = threading.Event(), threading.Event()
    outcome: dict = {}
    with local_server() as srv:
        for i in range(10):
            srv.serve(f"/p{i}.html", page(f"Page {i} says hello number {i}."), "text/html; charset=utf-8")
        # the second read of the first page (its ingest, after the listing) stalls
        srv.routes["/p0.html"] = stalled_route(page("Page 0 says hello number 0."), entered, release, on_hit=2)
        urls = [srv.url(f"/p{i}.html") for i in range(10)]
        worker = threading.Thread(target=lambda: outcome.setdefault("report", engine.watch_web_pages(A, "web", urls)))
        worker.start()
        try:
            assert entered.wait(60), "the sync never got to ingesting"
            [row] = engine.sources(A)
            with engine._db.write() as s:  # meanwhile its lease ran out and another machine's sync took over
                src = s.get(SyncedSource, row.id)
                src.lease_owner = "elsewhere:1:1:feedface"
                src.lease_until = datetime.now(timezone.utc) + timedelta(seconds=60)
                s.add(src)
        finally:
            release.set()
            worker.join(60)
    report = outcome["report"]
    assert report.status == "failed" and "took this source over" in report.error
    assert len(report.results) == 8  # the first group of fetches; nothing after the lease was lost
    assert len(engine.list_files(A, "web")) == 8
    with engine._db.read() as s:
        assert s.get(SyncedSource, row.id).lease_owner == "elsewhere:1:1:feedface"  # not taken back, not freed


def test_a_live_sync_keeps_its_lease_through_a_step_longer_than_the_lease(engine):
    engine.create_kb(A, "web")
    from core.sources import service as sources

    row = sources.find_or_create(engine._parts, A, kind="web", kb_ref="web", config={"urls": []}, title="t", watch=False)
    with lease.Lease(engine._db, row.id, ttl=1.0, heartbeat=0.2) as held:
        time.sleep(2.5)  # one long step (an OCR'd scan): the heartbeat renews the lease by time
        with pytest.raises(SyncBusy):
            lease.acquire(engine._db, row.id, lease.new_holder())
        held.check()  # still ours
    lease.acquire(engine._db, row.id, lease.new_holder())  # let go on exit
