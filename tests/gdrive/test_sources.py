"""The sync engine apart from Drive: the lease, web pages as a second source kind, the scheduler."""

from __future__ import annotations

import threading
import time

import pytest

from core.sources import lease
from core.sources.base import SyncBusy
from core.types import SYSTEM_ACTOR
from tests.gdrive.conftest import connect
from tests.parsers.http_fixtures import local_server


def page(word: str) -> bytes:
    return f"<html><body><article><h1>Guide</h1><p>The meeting room code is {word}.</p></article></body></html>".encode()


def test_web_pages_refetch_and_follow_the_page(engine, alice):
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"url_allow_private": True}})
    engine.create_kb(alice, "web")
    with local_server() as srv:
        srv.serve("/a.html", page("wombat"), "text/html; charset=utf-8")
        srv.serve("/b.html", page("koala"), "text/html; charset=utf-8")
        urls = [srv.url("/a.html"), srv.url("/b.html")]
        first = engine.watch_web_pages(alice, "web", urls)
        assert sorted(r.action for r in first.results) == ["added", "added"]
        [row] = engine.sources(alice, kind="web")
        unchanged = engine.sync_source(alice, row.id)
        assert unchanged.results == []  # same text: nothing re-ingested
        srv.serve("/a.html", page("platypus"), "text/html; charset=utf-8")
        srv.serve("/b.html", b"gone", "text/plain", status=404)
        changed = engine.sync_source(alice, row.id)
    actions = {(r.item_id, r.action) for r in changed.results}
    assert (urls[0], "updated") in actions and (urls[1], "failed") in actions
    texts = " ".join(c["text"] for f in engine.list_files(alice, "web") if f.status == "indexed"
                     for c in engine.file_chunks(alice, f.id))
    assert "platypus" in texts and "wombat" not in texts
    assert "koala" in texts  # a page that failed to load this time keeps its last good version
    engine.delete_kb(alice, "web")
    assert engine.sources(alice, kind="web") == [] and engine.sync_logs(alice) == []  # gone with it


def test_web_source_refuses_private_addresses_before_connecting(engine, alice):
    engine.create_kb(alice, "web")
    report = engine.watch_web_pages(alice, "web", ["http://169.254.169.254/latest/meta-data/"])
    [result] = report.results
    assert result.action == "failed" and ("169.254.169.254" in result.error or "link-local" in result.error or "private" in result.error)
    assert engine.list_files(alice, "web") == []


def test_two_syncs_of_one_source_never_overlap(engine, drive, alice):
    folder = drive.folder("F")
    drive.add("a.txt", "text/plain", folder, content=b"alpha")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    engine.gdrive_import(alice, "kb", [folder], watch=True)
    [row] = engine.sources(alice)
    lease.acquire(engine._db, row.id, "another-process")  # as if another process were syncing it
    with pytest.raises(SyncBusy):
        engine.sync_source(alice, row.id)
    [busy] = engine.gdrive_sync(alice)  # the batch call reports it and goes on
    assert busy.status == "busy" and "already running" in busy.error
    lease.release(engine._db, row.id, "another-process")
    # and two threads at once: exactly one wins the lease
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def take(holder: str) -> None:
        barrier.wait()
        try:
            lease.acquire(engine._db, row.id, holder)
            outcomes.append("got")
        except SyncBusy:
            outcomes.append("busy")

    threads = [threading.Thread(target=take, args=(f"t{i}",)) for i in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sorted(outcomes) == ["busy", "got"]


def test_scheduler_syncs_watched_sources_when_due_without_blocking(engine, drive, alice):
    folder = drive.folder("F")
    drive.add("a.txt", "text/plain", folder, content=b"alpha")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    engine.gdrive_import(alice, "kb", [folder], watch=True)
    assert engine.run_scheduled_syncs() == []  # interval 0 = manual only
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": {"sync_interval_minutes": 1}})
    assert engine.run_scheduled_syncs() == []  # synced a moment ago: not due yet
    drive.add("b.txt", "text/plain", folder, content=b"beta")
    from core.sources.models import SyncedSource

    with engine._db.write() as s:  # as if the last sync were two minutes ago
        row = s.get(SyncedSource, engine.sources(alice)[0].id)
        from datetime import datetime, timedelta, timezone

        row.last_sync_at = datetime.now(timezone.utc) - timedelta(minutes=2)
        s.add(row)
    started = time.monotonic()
    scheduler = engine.start_sync_scheduler(tick_seconds=0.2)
    assert time.monotonic() - started < 1.0  # starting it does not wait for a pass
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(l.trigger == "schedule" and l.status != "running"
                                                      for l in engine.sync_logs(alice)):
            time.sleep(0.1)
    finally:
        engine.stop_sync_scheduler()
    assert not scheduler.running
    [scheduled] = [l for l in engine.sync_logs(alice) if l.trigger == "schedule"]
    assert scheduled.added == 1 and scheduled.status == "done"


def test_shared_drive_folder_imports_and_syncs(engine, drive, alice):
    team = drive.shared_drive("Engineering")
    docs = drive.folder("Docs", team, drive_id=team)
    fid = drive.add("runbook.txt", "text/plain", docs, drive_id=team, content=b"Restart with the magpie script.")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    first = engine.gdrive_import(alice, "kb", [docs], watch=True)
    assert [(r.name, r.action) for r in first.results] == [("runbook.txt", "added")]
    drive.edit(fid, content=b"Restart with the raven script.")
    [rep] = engine.gdrive_sync(alice)
    assert [(r.name, r.action) for r in rep.results] == [("runbook.txt", "updated")]
    texts = " ".join(c["text"] for f in engine.list_files(alice, "kb") for c in engine.file_chunks(alice, f.id))
    assert "raven" in texts and "magpie" not in texts
