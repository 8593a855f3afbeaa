"""The Google Drive page in Streamlit's AppTest: the real app and engine, Google faked at the
HTTP level. Connect through the fake consent redirect, browse, import with watch, sync, log."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import requests

from core.types import SYSTEM_ACTOR
from tests.dashboard.conftest import button, engine, new_app, sign_up, texts  # noqa: F401 (fixture)
from tests.fakes.drive_server import DOC
from tests.gdrive.conftest import OPEN_FAKE_DRIVE

PAGE = "../pages/google_drive.py"


def open_page(at):
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def run_until(at, predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        if predicate(texts(at)):
            return at
        time.sleep(0.3)
    raise AssertionError(f"timed out; page says:\n{texts(at)}")


def test_page_says_what_is_missing_before_set_up(engine):
    at = sign_up(new_app(), "admin")
    open_page(at)
    page = texts(at)  # the fields by the labels Documents Settings shows, not their keys
    assert "OAuth client ID" in page and "Redirect address" in page and "client_id" not in page


def test_connect_browse_import_sync_and_log(engine, drive):
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings(), "parsing": dict(OPEN_FAKE_DRIVE)})
    team = drive.folder("Team")
    drive.add("Plan", DOC, team, exports={"text/markdown": "# Plan\n\nShip the heron release in May. 五月发布。".encode()})
    drive.add("notes.txt", "text/plain", team, content=b"Standup at nine, wren room.")
    at = sign_up(new_app(), "alice")
    engine.create_kb(engine.actor_for(engine.list_users(SYSTEM_ACTOR)[0].id), "team")
    open_page(at)

    button(at, "Connect Google Drive").click()
    at.run()
    consent_url = at.session_state["gdrive_auth"][0]
    assert consent_url.startswith(drive.url + "/o/oauth2/auth?")
    back = requests.get(consent_url, allow_redirects=False, timeout=10)
    assert back.status_code == 302
    query = {k: v[0] for k, v in parse_qs(urlsplit(back.headers["Location"]).query).items()}
    at.query_params["code"], at.query_params["state"] = query["code"], query["state"]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Connected as alice@example.com" in texts(at)

    button(at, "Open Team").click()
    at.run()
    shown = at.dataframe[0].value
    assert list(shown["Name"]) == ["Plan", "notes.txt"]
    button(at, "My Drive ›").click()  # back up the breadcrumb, then import the whole folder
    at.run()
    assert list(at.dataframe[0].value["Name"]) == ["Team"]
    at.multiselect(key="gdrive_selection").select(team)
    at.toggle(key="gdrive_watch").set_value(True)
    at.run()
    button(at, "Import").click()
    run_until(at, lambda page: "2 added" in page)

    drive.add("extra.txt", "text/plain", team, content=b"A third file, kestrel.")
    button(at, "Sync now").click()
    run_until(at, lambda page: "1 added" in page)
    logs = [df.value for df in at.dataframe if "Trigger" in df.value.columns][0]
    assert list(logs["Trigger"]) == ["by hand", "import"] and list(logs["Added"]) == [1, 2]
    hits = engine.search(engine.actor_for(engine.list_users(SYSTEM_ACTOR)[0].id), "kestrel", ["team"]).hits
    assert hits and "kestrel" in hits[0].text

    button(at, "Disconnect Google Drive").click()  # inside the "Disconnect" popover: asked first
    at.run()
    assert any(b.label == "Connect Google Drive" for b in at.button)


def test_settings_tab_explains_the_google_cloud_set_up_in_both_languages(engine, drive):
    at = sign_up(new_app(), "admin")
    at.switch_page("../pages/documents_settings.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    page = texts(at)
    assert "authorised redirect URI" in page and "OAuth client ID" in page
    assert "Picker" not in page  # the Google Picker is not offered: no API key asked for
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings("https://rag.example.com/google_drive")})
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    page = texts(at)
    assert "已授权的重定向 URI" in page and "https://rag.example.com/google_drive" in page
    assert "所需设置已齐全" in page
    assert drive.client_secret not in page  # the secret is never shown back


def test_chat_attaches_a_drive_file_as_its_own_context(engine, drive):
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings(), "parsing": dict(OPEN_FAKE_DRIVE)})
    drive.add("Menu", DOC, "root", exports={"text/markdown": "# Menu\n\nThursday is dumpling day.\n".encode()})
    at = sign_up(new_app(), "alice")
    alice = engine.actor_for(engine.list_users(SYSTEM_ACTOR)[0].id)
    assert not any("Google Drive" in e.label for e in at.expander)  # not connected: not offered
    engine.gdrive_connect_refresh_token(alice, drive.issue_refresh_token("alice"))
    at.run()
    at.text_input(key="chat_drive_query").input("menu")
    at.run()
    [option] = at.multiselect(key="chat_drive_files").options
    at.multiselect(key="chat_drive_files").select(option)
    at.run()
    button(at, "Attach").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Menu.md" in texts(at) and "indexed" in texts(at)
    chat_id = at.session_state["chat_id"]
    [attached] = [f for f in engine.list_files(alice) if f.chat_id == chat_id]
    assert attached.name == "Menu.md"
