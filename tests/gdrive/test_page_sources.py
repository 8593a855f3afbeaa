"""The Google Drive page's sources in AppTest (issue 18): Disconnect asks first, and afterwards the
watched sources and their log stay listed as needing a reconnect; a source with a file that
fails on every sync says so and names the file, instead of "ok"."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR
from tests.dashboard.conftest import button, engine, new_app, sign_up, texts  # noqa: F401 (fixture)
from tests.gdrive.conftest import OPEN_FAKE_DRIVE, connect
from tests.gdrive.test_page import open_page


def _alice_with_a_watched_folder(engine, drive, *files):
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings(), "parsing": {"max_upload_mb": 1, **OPEN_FAKE_DRIVE}})
    team = drive.folder("Team")
    for name, content in files:
        drive.add(name, "text/plain", team, content=content)
    at = sign_up(new_app(), "alice")
    alice = engine.actor_for(at.session_state["user_id"])
    connect(engine, alice, drive)
    engine.create_kb(alice, "team")
    engine.gdrive_import(alice, "team", [team], watch=True)
    return open_page(at), alice


def test_disconnect_asks_first_and_the_watched_sources_stay_listed_needing_a_reconnect(engine, drive):
    at, alice = _alice_with_a_watched_folder(engine, drive, ("notes.txt", b"Standup at nine, wren room."))
    assert "Team → team" in texts(at)
    assert engine.gdrive_status(alice)["connected"]  # drawing the page disconnected nothing
    button(at, "Disconnect Google Drive").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not engine.gdrive_status(alice)["connected"]
    page = texts(at)
    assert "Team → team · needs reconnecting" in page and "Sync log" in page
    assert any(b.label == "Reconnect Google Drive" or b.label == "Connect Google Drive" for b in at.button)
    sync = next(b for b in at.button if b.label == "Sync now")
    assert sync.disabled  # a Drive source syncs again once reconnected
    log = next(d.value for d in at.dataframe if "Trigger" in d.value.columns)
    assert list(log["Trigger"]) == ["import"] and list(log["Status"]) == ["done"]


def test_a_file_failing_on_every_sync_is_named_on_its_source(engine, drive):
    at, alice = _alice_with_a_watched_folder(engine, drive, ("notes.txt", b"Standup at nine, wren room."),
                                             ("dump.txt", b"x" * (1024 * 1024 + 1)))
    engine.gdrive_sync(alice)  # fails again: over the upload limit
    at.run()
    page = texts(at)
    assert "Team → team · 1 file failing: dump.txt (" in page and "upload limit of 1 MB" in page, page
    assert "· ok ·" not in page
