"""Google Drive on the common source contract, like tests/sources/test_folder.py and test_webdav.py:
import a folder from the Drive stand-in (tests/fakes/drive_server.py), change it there (an edit, a
delete, a trash, a rename, a new file), sync, and ``doctor`` finds the database and the vector
store in agreement with nothing orphaned."""

from __future__ import annotations

from tests.gdrive.conftest import connect
from tests.sources.conftest import kb_text


def _actions(report) -> dict[str, str]:
    return {r.name: r.action for r in report.results}


def test_import_change_sync_leaves_doctor_clean(engine, drive, alice):
    folder = drive.folder("Team")
    ids = {name: drive.add(name, "text/plain", folder, content=text.encode()) for name, text in {
        "handbook.txt": "The meeting room code is wombat.",
        "travel.txt": "Trains are booked two weeks ahead for the koala team.",
        "old.txt": "The parking garage closes at nine for the quokka crew.",
        "menu.txt": "The canteen serves lentil soup on Fridays."}.items()}
    connect(engine, alice, drive)
    engine.create_kb(alice, "team")
    first = engine.gdrive_import(alice, "team", [folder])
    assert first.status == "done", first.error
    assert set(_actions(first).values()) == {"added"} and len(first.results) == 4
    [row] = engine.sources(alice, kind="gdrive")
    file_of = {f.meta["source_item_id"]: f.id for f in engine.list_files(alice, "team")}
    assert engine.doctor(alice).healthy

    drive.edit(ids["handbook.txt"], content=b"The meeting room code is now platypus, from Monday.")  # edited
    drive.edit(ids["travel.txt"], name="trains.txt")  # renamed, same bytes
    drive.delete(ids["old.txt"])  # deleted for good
    drive.trash(ids["menu.txt"])  # sent to the bin
    drive.add("parking.txt", "text/plain", folder, content=b"Visitors park on level minus two, the quartz bay.")  # new
    [second] = engine.gdrive_sync(alice, "team")
    assert second.status == "done", second.error
    actions = _actions(second)
    assert actions["handbook.txt"] == "updated" and actions["parking.txt"] == "added"
    assert actions["old.txt"] == "removed" and actions["menu.txt"] == "removed"
    assert actions["trains.txt"] in ("renamed", "updated")
    renamed = next(r for r in second.results if r.name == "trains.txt")
    assert file_of[renamed.item_id] == renamed.file_id  # the same file row, not deleted and added
    names = {f.meta["drive_name"] for f in engine.list_files(alice, "team")}  # the name on Drive now
    assert names == {"handbook.txt", "trains.txt", "parking.txt"}
    text = kb_text(engine, alice, "team")
    assert "platypus" in text and "koala" in text and "quartz" in text
    assert "wombat" not in text and "quokka" not in text and "lentil" not in text
    report = engine.doctor(alice)
    assert report.healthy, report
    assert [e.status for e in engine.sync_logs(alice, row.id)] == ["done", "done"]
