"""The synced-sources panel (Google Drive page, beside web pages) adds a server folder (admins) and
a WebDAV folder (AppTest, a real engine, a real WebDAV server on loopback)."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR
from tests.dashboard.conftest import engine, new_app, sign_up, texts  # noqa: F401 (fixture)
from tests.gdrive.conftest import drive  # noqa: F401 (fixture: the page needs Drive set up)
from tests.gdrive.test_page import open_page
from tests.sources.webdav_server import PASSWORD, USER, webdav_server


def test_an_admin_adds_a_folder_and_a_webdav_folder_from_the_panel(engine, drive, tmp_path):  # noqa: F811
    share, dav_root = tmp_path / "share", tmp_path / "dav"
    share.mkdir()
    dav_root.mkdir()
    (share / "rota.md").write_text("The fire warden this week is Priya.", encoding="utf-8")
    (dav_root / "menu.md").write_text("Thursday is dumpling day.", encoding="utf-8")
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings(), "parsing": {"url_allow_hosts": ["127.0.0.1"]},
                                        "sources": {"kinds": {"folder": {"allowed_roots": [str(share)]}}}})
    at = sign_up(new_app(), "alice")  # the first account: an admin
    alice = engine.actor_for(at.session_state["user_id"])
    engine.create_kb(alice, "team")
    at = open_page(at)
    at.text_input(key="folder_path").input(str(share))
    at.run()  # the button is enabled once a path is typed
    at.button(key="folder_add").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "1 added" in texts(at), texts(at)
    with webdav_server(dav_root) as dav:
        at.text_input(key="webdav_url").input(dav.folder)
        at.text_input(key="webdav_user").input(USER)
        at.text_input(key="webdav_password").input(PASSWORD)
        at.run()
        at.button(key="webdav_add").click()
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert {s.kind for s in engine.sources(alice)} == {"folder", "webdav"}
    at.run()
    page = texts(at)
    assert f"Folder: {share}" in page and f"WebDAV: {USER}@127.0.0.1/dav/" in page and PASSWORD not in page


def test_a_plain_user_gets_no_folder_form(engine, drive):  # noqa: F811
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings()})
    engine.sign_up("admin", "correct horse 0")
    at = sign_up(new_app(), "bob")
    engine.create_kb(engine.actor_for(at.session_state["user_id"]), "bobs")
    at = open_page(at)
    keys = {w.key for w in at.text_input}
    assert "webdav_url" in keys and "folder_path" not in keys


def test_a_user_adds_a_dingtalk_knowledge_base_from_the_panel(engine, drive):  # noqa: F811
    from tests.sources.dingtalk_server import APP_KEY, APP_SECRET, OPERATOR, WORKSPACE, dingtalk_server

    with dingtalk_server() as ding:
        ding.add("d1", "Menu", text="Thursday is dumpling day.")
        engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings(), "parsing": {"url_allow_hosts": ["127.0.0.1"]},
                                            "sources": {"kinds": {"dingtalk": {"base_url": ding.base}}}})
        engine.sign_up("admin", "correct horse 0")
        at = sign_up(new_app(), "bob")  # a plain user adds one with their own app's credentials
        bob = engine.actor_for(at.session_state["user_id"])
        engine.create_kb(bob, "bobs")
        at = open_page(at)
        for key, value in (("dingtalk_app_key", APP_KEY), ("dingtalk_secret", APP_SECRET),
                           ("dingtalk_operator", OPERATOR), ("dingtalk_workspace", WORKSPACE)):
            at.text_input(key=key).input(value)
        at.run()
        at.button(key="dingtalk_add").click()
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert "1 added" in texts(at), texts(at)
        at.run()
    [row] = engine.sources(bob)
    assert row.kind == "dingtalk" and APP_SECRET not in texts(at) and f"DingTalk: knowledge base {WORKSPACE}" in texts(at)
