"""A server folder as a synced source: real temp folders, a real engine (hash embedder, embedded
Qdrant, SQLite). Import, then every kind of change (edit, touch, rename, move within, delete,
move out, new, unsupported, unreadable), each followed by a sync that leaves no stray vector;
the allow-list, admins-only and every way out of a root refused."""

from __future__ import annotations

import os
import shutil

import pytest
from sqlmodel import select

from core.errors import PermissionDenied
from core.types import SYSTEM_ACTOR
from tests.gdrive.conftest import docx_bytes
from tests.sources.conftest import kb_text

A = SYSTEM_ACTOR


@pytest.fixture
def roots(tmp_path, engine):
    share, outside = tmp_path / "share", tmp_path / "outside"
    (share / "team").mkdir(parents=True)
    outside.mkdir()
    engine.save_settings(A, {"sources": {"kinds": {"folder": {"allowed_roots": [str(share)]}}}})
    return share / "team", outside


def _write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _actions(report) -> dict[str, str]:
    return {r.name: r.action for r in report.results}


def test_folder_sources_are_off_until_an_admin_lists_roots(engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    with pytest.raises(PermissionDenied, match="allowed_roots"):
        engine.add_folder_source(A, "kb", str(folder))
    assert engine.sources(A) == [] and engine.list_files(A, "kb") == []


def test_only_an_admin_adds_a_folder(engine, roots):
    engine.sign_up("root-admin", "correct horse 0")
    alice = engine.actor_for(engine.sign_up("alice", "correct horse 1").id)
    assert not alice.is_admin
    engine.create_kb(alice, "mine")
    with pytest.raises(PermissionDenied):
        engine.add_folder_source(alice, "mine", str(roots[0]))
    with pytest.raises(PermissionDenied):  # nor through the generic door
        engine.add_source(alice, "folder", "mine", {"path": str(roots[0])})
    assert engine.sources(A) == []


def test_no_way_out_of_the_allowed_roots(engine, roots, tmp_path):
    team, outside = roots
    _write(outside / "secret.md", "The vault combination is 4711.")
    link = team / "escape"
    link.symlink_to(outside, target_is_directory=True)
    for path in (str(team / ".." / ".." / "outside"), str(link), str(outside), "/etc"):
        with pytest.raises(PermissionDenied, match="not under an allowed root"):
            engine.add_folder_source(A, "kb", path)
    assert engine.sources(A) == []
    # inside an allowed folder: a link to a file outside, and a link to a folder, are not followed
    _write(team / "ok.md", "The canteen opens at noon.")
    (team / "leak.md").symlink_to(outside / "secret.md")
    report = engine.add_folder_source(A, "kb", str(team))
    acts = {r.name: (r.action, r.error) for r in report.results}
    assert acts["ok.md"][0] == "added"
    assert acts["leak.md"] == ("skipped", "a link that leads out of the folder")
    assert acts["escape"] == ("skipped", "a link to a folder is not followed")
    assert "4711" not in kb_text(engine, A, "kb") and "canteen" in kb_text(engine, A, "kb")
    # the roots shrink: the next sync refuses the folder and removes nothing
    engine.save_settings(A, {"sources": {"kinds": {"folder": {"allowed_roots": [str(outside)]}}}})
    [row] = engine.sources(A, kind="folder")
    again = engine.sync_source(A, row.id)
    assert again.status == "failed" and "not under an allowed root" in again.error
    assert "canteen" in kb_text(engine, A, "kb")


def test_import_then_every_change_synced(engine, roots):
    team, outside = roots
    _write(team / "handbook.md", "# Handbook\n\nThe meeting room code is wombat.")
    _write(team / "policies" / "travel.txt", "Trains are booked two weeks ahead for the koala team.")
    _write(team / "policies" / "leave.txt", "Annual leave is twenty-five days for the numbat office.")
    _write(team / "notes" / "old.txt", "The parking garage closes at nine for the quokka crew.")
    (team / "tool.exe").write_bytes(b"MZ\x90\x00binary")
    _write(team / ".git" / "config", "[core] hidden")
    first = engine.add_folder_source(A, "kb", str(team))
    assert first.status == "done"
    assert _actions(first) == {"handbook.md": "added", "policies/travel.txt": "added", "policies/leave.txt": "added",
                               "notes/old.txt": "added", "tool.exe": "skipped"}
    assert "not a supported document type" in next(r.error for r in first.results if r.name == "tool.exe")
    text = kb_text(engine, A, "kb")
    assert "wombat" in text and "koala" in text and "hidden" not in text
    [row] = engine.sources(A, kind="folder")
    assert row.title == f"Folder: {team}" and row.state == "ok" and row.last_sync_at is not None
    file_of = {f.meta["source_item_id"]: f.id for f in engine.list_files(A, "kb")}

    assert [r for r in engine.sync_source(A, row.id).results if r.action != "skipped"] == []  # nothing changed

    _write(team / "handbook.md", "# Handbook\n\nThe meeting room code is platypus.")  # edited
    os.utime(team / "policies" / "leave.txt", ns=(1, 1))  # touched only: same content
    (team / "policies" / "travel.txt").rename(team / "policies" / "trains.txt")  # renamed
    (team / "notes").mkdir(exist_ok=True)
    shutil.move(team / "notes" / "old.txt", outside / "old.txt")  # moved out
    _write(team / "new" / "menu.md", "Thursday is dumpling day.")  # new
    second = engine.sync_source(A, row.id)
    assert second.status == "done", second.error
    acts = _actions(second)
    assert acts == {"handbook.md": "updated", "policies/trains.txt": "renamed", "notes/old.txt": "removed",
                    "new/menu.md": "added", "tool.exe": "skipped"}
    renamed = next(r for r in second.results if r.action == "renamed")
    assert file_of[renamed.item_id] == renamed.file_id  # the same file and vectors, not deleted and added
    text = kb_text(engine, A, "kb")
    assert "platypus" in text and "wombat" not in text and "quokka" not in text and "dumpling" in text
    assert "koala" in text and "numbat" in text
    names = sorted(f.meta.get("path") for f in engine.list_files(A, "kb"))
    assert names == ["handbook.md", "new/menu.md", "policies/leave.txt", "policies/trains.txt"]

    (team / "handbook.md").unlink()  # deleted
    shutil.move(team / "new" / "menu.md", team / "menu.md")  # moved within
    third = engine.sync_source(A, row.id)
    assert {k: v for k, v in _actions(third).items() if v != "skipped"} == {"handbook.md": "removed", "menu.md": "renamed"}
    assert "platypus" not in kb_text(engine, A, "kb")
    assert engine.doctor(A).healthy
    logs = engine.sync_logs(A, row.id)
    assert [e.trigger for e in logs][-1] == "import" and len(logs) == 4
    assert logs[0].removed == 1 and logs[0].updated == 1


def test_a_failing_file_is_retried_and_a_missing_folder_removes_nothing(engine, roots):
    team, _ = roots
    _write(team / "fine.md", "The library lends laptops.")
    (team / "report.docx").write_bytes(b"PK\x03\x04 not really a docx")
    first = engine.add_folder_source(A, "kb", str(team))
    assert _actions(first) == {"fine.md": "added", "report.docx": "failed"}
    [row] = engine.sources(A, kind="folder")
    assert _actions(engine.sync_source(A, row.id)) == {"report.docx": "failed"}  # tried again, not forgotten
    (team / "report.docx").write_bytes(docx_bytes(["The audit found three open findings for the wallaby unit."]))
    assert _actions(engine.sync_source(A, row.id)) == {"report.docx": "added"}
    assert "wallaby" in kb_text(engine, A, "kb")
    # the share is unmounted: the sync fails, saying so, and the knowledge base keeps its files
    shutil.rmtree(team)
    gone = engine.sync_source(A, row.id)
    assert gone.status == "failed" and "not there" in gone.error and gone.results == []
    assert "wallaby" in kb_text(engine, A, "kb") and "laptops" in kb_text(engine, A, "kb")
    [row] = engine.sources(A, kind="folder")
    assert row.state == "error" and "not there" in row.last_error


def test_cancelling_an_import_stops_before_the_next_files_and_a_sync_finishes_it(engine, roots):
    from core.sources.sync import FETCH_GROUP

    team, _ = roots
    for i in range(FETCH_GROUP + 2):
        _write(team / f"{i:02d}.txt", f"file number {i} of the heron archive")

    def cancel_once(name, done, total, message):
        for job in engine.jobs(A, active_only=True):
            if job.kind == "sync" and not job.cancel_requested:
                engine.cancel_job(A, job.id)

    report = engine.add_folder_source(A, "kb", str(team), progress=cancel_once)
    assert report.status == "cancelled"
    assert [r.action for r in report.results].count("added") == FETCH_GROUP
    assert [r.action for r in report.results].count("cancelled") == 2
    assert [j.state for j in engine.jobs(A) if j.kind == "sync"] == ["cancelled"]
    [row] = engine.sources(A, kind="folder")
    rest = engine.sync_source(A, row.id)  # retried: the files not reached are added, the others kept
    assert sorted(r.name for r in rest.results) == [f"{FETCH_GROUP:02d}.txt", f"{FETCH_GROUP + 1:02d}.txt"]
    assert len([f for f in engine.list_files(A, "kb") if f.status == "indexed"]) == FETCH_GROUP + 2


def test_a_watched_folder_syncs_on_the_schedule(engine, roots):
    team, _ = roots
    _write(team / "a.md", "The library lends laptops.")
    engine.add_folder_source(A, "kb", str(team))
    assert engine.run_scheduled_syncs() == []  # the schedule is off by default
    engine.save_settings(A, {"gdrive": {"sync_interval_minutes": 1}})
    _write(team / "b.md", "The library lends tripods too.")
    with engine._db.write() as s:  # the last sync was long ago
        from core.sources.models import SyncedSource

        row = s.exec(select(SyncedSource)).one()
        row.last_sync_at = row.last_sync_at.replace(year=2000)
        s.add(row)
    [report] = engine.run_scheduled_syncs()
    assert _actions(report) == {"b.md": "added"}
    assert engine.sync_logs(A)[0].trigger == "schedule"
