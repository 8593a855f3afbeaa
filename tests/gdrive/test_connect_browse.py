"""Connecting (refresh token and the consent redirect with PKCE + state), browsing with paging,
shared drives, token refresh, a revoked token, and two users' connections kept apart."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from core.errors import InvalidInput
from core.gdrive.errors import NotConnected, ReconnectNeeded
from core.gdrive.models import DriveConnection
from tests.fakes.drive_server import DOC
from tests.gdrive.conftest import connect


def consent(url: str) -> dict:
    """Follow the consent URL to the fake Google, which redirects back at once."""
    answer = requests.get(url, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, answer.text
    return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["Location"]).query).items()}


def test_consent_flow_uses_pkce_and_state_and_stores_tokens_encrypted(engine, drive, alice):
    url = engine.gdrive_auth_url(alice)
    query = parse_qs(urlsplit(url).query)
    assert query["code_challenge_method"] == ["S256"] and query["code_challenge"][0]
    assert query["scope"] == ["https://www.googleapis.com/auth/drive.readonly"]
    assert query["access_type"] == ["offline"]
    back = consent(url)
    status = engine.gdrive_finish_auth(alice, back["code"], back["state"])
    assert status["connected"] and status["email"] == "alice@example.com"
    with engine._db.read() as s:
        row = s.get(DriveConnection, alice.user_id)
    refresh = next(iter(drive.refresh_tokens))
    assert row.refresh_token.startswith("enc:v1:") and refresh not in row.refresh_token
    assert "ya29." not in row.access_token
    # the state is single use
    with pytest.raises(InvalidInput, match="does not match"):
        engine.gdrive_finish_auth(alice, back["code"], back["state"])


def test_a_state_issued_to_another_user_is_refused(engine, drive, alice, bob):
    back = consent(engine.gdrive_auth_url(alice))
    with pytest.raises(InvalidInput, match="does not match a request of yours"):
        engine.gdrive_finish_auth(bob, back["code"], back["state"])
    assert not engine.gdrive_status(bob)["connected"]
    assert drive.api_calls("/token") == 0  # refused before any exchange


def test_listing_follows_every_page(engine, drive, alice):
    folder = drive.folder("Team")
    names = [f"note {i:02d}.txt" for i in range(7)]
    for n in names:
        drive.add(n, "text/plain", folder, content=n.encode())
    connect(engine, alice, drive)
    listed = engine.gdrive_list(alice, folder)
    assert [e["name"] for e in listed] == names  # max_page=2: four pages
    assert drive.api_calls("/drive/v3/files?") >= 4
    assert [e["name"] for e in engine.gdrive_list(alice)] == ["Team"]
    assert [e["name"] for e in engine.gdrive_list(alice, query="note 0")] == names


def test_shared_with_me_and_shared_drives(engine, drive, alice):
    drive.add("From a colleague", DOC, "", shared_with_me=True, exports={"text/markdown": b"# hi"})
    team = drive.shared_drive("Engineering")
    drive.add("Runbook.txt", "text/plain", team, drive_id=team, content=b"restart the service")
    connect(engine, alice, drive)
    assert [e["name"] for e in engine.gdrive_list(alice, "shared-with-me")] == ["From a colleague"]
    drives = engine.gdrive_list(alice, "shared-drives")
    assert [(d["name"], d["folder"]) for d in drives] == [("Engineering", True)]
    assert [e["name"] for e in engine.gdrive_list(alice, team)] == ["Runbook.txt"]


def test_expired_access_token_refreshes_by_itself_and_is_stored(engine, drive, alice):
    drive.folder("A")
    connect(engine, alice, drive)
    with engine._db.read() as s:
        before = s.get(DriveConnection, alice.user_id).access_token
    drive.expire_access_tokens()
    assert [e["name"] for e in engine.gdrive_list(alice)] == ["A"]
    with engine._db.read() as s:
        after = s.get(DriveConnection, alice.user_id).access_token
    assert after != before and after.startswith("enc:v1:")


def test_revoked_token_puts_the_connection_in_reconnect(engine, drive, alice):
    drive.folder("A")
    connect(engine, alice, drive)
    drive.revoke_account("alice")
    with pytest.raises(ReconnectNeeded, match="reconnect"):
        engine.gdrive_list(alice)
    status = engine.gdrive_status(alice)
    assert status["state"] == "reconnect" and not status["connected"]
    with pytest.raises(ReconnectNeeded):
        engine.gdrive_list(alice)


def test_two_users_connections_are_apart(engine, drive, alice, bob):
    drive.folder("Alice's folder", account="alice")
    drive.folder("Bob's folder", account="bob")
    connect(engine, alice, drive, "alice")
    with pytest.raises(NotConnected):
        engine.gdrive_list(bob)
    connect(engine, bob, drive, "bob")
    assert [e["name"] for e in engine.gdrive_list(alice)] == ["Alice's folder"]
    assert [e["name"] for e in engine.gdrive_list(bob)] == ["Bob's folder"]
    engine.gdrive_disconnect(bob)
    assert engine.gdrive_status(alice)["connected"] and not engine.gdrive_status(bob)["connected"]


def test_disconnect_revokes_at_google_and_deletes(engine, drive, alice):
    connect(engine, alice, drive)
    refresh = next(iter(drive.refresh_tokens))
    assert engine.gdrive_disconnect(alice) == {"disconnected": True, "revoked_at_google": True}
    assert refresh in drive.revoked and not drive.refresh_tokens
    with engine._db.read() as s:
        assert s.get(DriveConnection, alice.user_id) is None
    with pytest.raises(NotConnected):
        engine.gdrive_list(alice)


def test_incomplete_settings_say_what_is_missing(engine, alice):
    from core.types import SYSTEM_ACTOR

    engine.save_settings(SYSTEM_ACTOR, {"gdrive": {"client_id": "", "redirect_uri": ""}})
    assert set(engine.gdrive_status(alice)["missing"]) == {"client_id", "redirect_uri"}
    with pytest.raises(Exception, match="client_id, redirect_uri"):
        engine.gdrive_auth_url(alice)


def test_redirect_into_a_signed_out_session_connects_the_user_the_state_was_issued_to(engine, drive, alice, bob):
    back = consent(engine.gdrive_auth_url(bob))
    status = engine.gdrive_finish_auth(None, back["code"], back["state"])
    assert status["connected"]
    assert engine.gdrive_status(bob)["connected"] and not engine.gdrive_status(alice)["connected"]
    with pytest.raises(InvalidInput):  # single use, even signed out
        engine.gdrive_finish_auth(None, back["code"], back["state"])
    with pytest.raises(InvalidInput):  # a made-up state connects nobody
        engine.gdrive_finish_auth(None, "code", "not-a-state")
