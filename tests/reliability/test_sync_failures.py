"""A source whose implementation raises something unexpected (here: Drive answers a shape the
client does not expect) fails with a reason; the scheduled pass goes on to the next source."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from core.config import RuntimeConfig
from core.engine import Engine
from core.sources.models import SyncedSource
from core.types import SYSTEM_ACTOR
from tests.fakes.drive_server import FakeDrive
from tests.gdrive.conftest import connect
from tests.parsers.http_fixtures import local_server


def odd_changes(folder: str) -> dict:
    """A changes page whose file has no id: the Drive source raises KeyError on it, not a CoreError."""
    return {"changes": [{"changeType": "file", "removed": False,
                         "file": {"name": "x.txt", "mimeType": "text/plain", "parents": [folder]}}],
            "newStartPageToken": "0:999"}


@pytest.fixture
def drive_engine(tmp_path, monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)
    with FakeDrive(max_page=2) as drive, Engine(RuntimeConfig.from_env(tmp_path / "data")) as engine:
        engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"},
                                            "gdrive": drive.settings(), "parsing": {"url_allow_private": True}})
        alice = engine.actor_for(engine.sign_up("alice", "correct horse 1").id)
        yield engine, drive, alice


def _drive_source(engine, drive, alice) -> str:
    """A watched Drive folder, imported once; its folder id."""
    folder = drive.folder("F")
    drive.add("a.txt", "text/plain", folder, content=b"alpha")
    connect(engine, alice, drive)
    engine.create_kb(alice, "drive")
    engine.gdrive_import(alice, "drive", [folder], watch=True)
    return folder


def test_a_source_that_raises_is_logged_failed_with_a_reason(drive_engine):
    engine, drive, alice = drive_engine
    folder = _drive_source(engine, drive, alice)
    [row] = engine.sources(alice)
    drive.odd_replies.append(("changes", odd_changes(folder)))
    report = engine.sync_source(alice, row.id)
    assert report.status == "failed" and "error id" in report.error
    [log] = [entry for entry in engine.sync_logs(alice) if entry.trigger == "manual"]
    assert log.status == "failed" and log.error == report.error
    assert engine.sources(alice)[0].state == "error"
    again = engine.sync_source(alice, row.id)  # the lease was let go: the next sync runs
    assert again.status == "done"


def test_one_broken_source_does_not_stop_the_scheduled_pass(drive_engine):
    engine, drive, alice = drive_engine
    folder = _drive_source(engine, drive, alice)
    engine.create_kb(alice, "web")
    with local_server() as srv:
        srv.serve("/a.html", b"<html><body><article><p>The door code is 4711.</p></article></body></html>",
                  "text/html; charset=utf-8")
        engine.watch_web_pages(alice, "web", [srv.url("/a.html")])
        engine.save_settings(SYSTEM_ACTOR, {"gdrive": {"sync_interval_minutes": 1}})
        with engine._db.write() as s:  # both last synced two minutes ago: both are due
            for row in s.exec(select(SyncedSource)).all():
                row.last_sync_at = datetime.now(timezone.utc) - timedelta(minutes=2)
                s.add(row)
        srv.serve("/a.html", b"<html><body><article><p>The door code is 9000.</p></article></body></html>",
                  "text/html; charset=utf-8")
        drive.odd_replies.append(("changes", odd_changes(folder)))  # the Drive source comes first
        reports = engine.run_scheduled_syncs()
    by_kind = {row.kind: row for row in engine.sources(alice)}
    scheduled = {entry.source_id: entry for entry in engine.sync_logs(alice) if entry.trigger == "schedule"}
    assert scheduled[by_kind["gdrive"].id].status == "failed"
    assert scheduled[by_kind["web"].id].status == "done" and scheduled[by_kind["web"].id].updated == 1
    assert len(reports) == 2
