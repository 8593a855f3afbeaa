"""A DingTalk knowledge base as a synced source, against a protocol-level stand-in of DingTalk's
open API on 127.0.0.1 (tests/sources/dingtalk_server.py), opened to the URL guard as an admin
would. Import, every kind of change (edit, rename, delete, move out, new), pagination, the token
cached and refreshed, rate limits retried, a wrong AppSecret, the secret kept out of every listing,
log and plain storage, and refused addresses refused before any connection."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlmodel import select

from core.errors import BlockedAddress
from core.sources.dingtalk import DingTalkSourceSettings
from core.sources.dingtalk.api import forget_tokens
from core.sources.models import SourceSecret
from core.types import SYSTEM_ACTOR
from tests.security.conftest import connections, hosts  # noqa: F401 (connections: a fixture)
from tests.sources.conftest import kb_text
from tests.sources.dingtalk_server import APP_KEY, APP_SECRET, OPERATOR, WORKSPACE, dingtalk_server

A = SYSTEM_ACTOR
NETTRAP = Path("/work/shared/tools/nettrap")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_cached_tokens():
    forget_tokens()
    yield
    forget_tokens()


@pytest.fixture
def ding():
    with dingtalk_server() as state:
        yield state


@pytest.fixture
def opened(engine, ding):
    # markdown keeps the names below readable (Handbook.md); the default, docx, has a test of its own
    engine.save_settings(A, {"parsing": {"url_allow_hosts": ["127.0.0.1"]},
                             "sources": {"kinds": {"dingtalk": {"base_url": ding.base, "export_format": "markdown"}}}})
    return engine


def _add(engine, secret: str = APP_SECRET, **kw):
    return engine.add_dingtalk_source(A, "kb", APP_KEY, SecretStr(secret), OPERATOR, WORKSPACE, **kw)


def _actions(report) -> dict[str, str]:
    return {r.name: r.action for r in report.results}


def _team(ding) -> None:
    ding.add("d1", "Handbook.adoc", text="# Handbook\n\nThe meeting room code is wombat.")
    ding.add("f1", "Policies", folder=True)
    ding.add("d2", "Travel", "f1", text="# Travel\n\nTrains are booked two weeks ahead for the koala team.")
    ding.add("d3", "Old", "f1", text="# Old\n\nThe parking garage closes at nine for the quokka crew.")
    ding.add("d4", "Guests", "f1", text="# Guests\n\nVisitors sign in at the emu desk.")
    ding.add("u1", "scan.pdf", category="DOCUMENT", extension="pdf")


def test_import_then_every_change_synced(opened, ding):
    engine = opened
    _team(ding)
    first = _add(engine)
    assert first.status == "done", first.error
    assert _actions(first) == {"Handbook.md": "added", "Policies/Travel.md": "added", "Policies/Old.md": "added",
                               "Policies/Guests.md": "added", "scan.pdf": "skipped"}
    assert ding.count("GET", "/v2.0/wiki/nodes") >= 4  # short pages: every nextToken followed
    text = kb_text(engine, A, "kb")
    assert "wombat" in text and "koala" in text and "emu" in text
    [row] = engine.sources(A, kind="dingtalk")
    assert row.title == f"DingTalk: knowledge base {WORKSPACE}" and row.state == "ok"
    file_of = {f.meta["source_item_id"]: f.id for f in engine.list_files(A, "kb")}

    exports = ding.count("POST", "/v2.0/doc/me/export/submit")
    quiet = engine.sync_source(A, row.id)
    assert {k: v for k, v in _actions(quiet).items() if v != "skipped"} == {}
    assert ding.count("POST", "/v2.0/doc/me/export/submit") == exports  # unchanged modified times: nothing exported

    ding.edit("d1", text="# Handbook\n\nThe meeting room code is now platypus.")  # edited
    ding.edit("d2", name="Trains")  # renamed (its modified time moves, its text does not)
    del ding.nodes["d3"]  # deleted
    ding.edit("d4", parent="root")  # moved within the knowledge base
    ding.add("f2", "New", folder=True)
    ding.add("d5", "Menu", "f2", text="Thursday is dumpling day.")  # new, in a new folder
    second = engine.sync_source(A, row.id)
    assert second.status == "done", second.error
    assert _actions(second) == {"Handbook.md": "updated", "Policies/Trains.md": "renamed", "Policies/Old.md": "removed",
                                "Guests.md": "renamed", "New/Menu.md": "added", "scan.pdf": "skipped"}
    for r in second.results:
        if r.action == "renamed":
            assert file_of[r.item_id] == r.file_id  # kept, not deleted and added
    text = kb_text(engine, A, "kb")
    assert "platypus" in text and "wombat" not in text and "quokka" not in text and "dumpling" in text
    assert "koala" in text and "emu" in text
    assert engine.doctor(A).healthy
    assert [e.status for e in engine.sync_logs(A, row.id)] == ["done", "done", "done"]


def test_a_folder_of_a_knowledge_base_and_a_document_moved_out_of_it(opened, ding):
    engine = opened
    _team(ding)
    first = _add(engine, folder_id="f1")
    assert _actions(first) == {"Travel.md": "added", "Old.md": "added", "Guests.md": "added"}
    ding.edit("d2", parent="root")  # moved out of the synced folder
    [row] = engine.sources(A, kind="dingtalk")
    second = engine.sync_source(A, row.id)
    assert _actions(second) == {"Travel.md": "removed"}
    text = kb_text(engine, A, "kb")
    assert "koala" not in text and "quokka" in text and "wombat" not in text


def test_docx_the_documented_export_is_the_default_and_parsed_like_an_upload(opened, ding):
    engine = opened
    engine.save_settings(A, {"sources": {"kinds": {"dingtalk": {"export_format": DingTalkSourceSettings().export_format}}}})
    ding.add("d1", "Handbook", text="# Handbook\nThe meeting room code is wombat.")
    report = _add(engine)
    assert _actions(report) == {"Handbook.docx": "added"}, report.error
    assert "wombat" in kb_text(engine, A, "kb")
    assert any(json.loads(b).get("targetFormat") == "docx" for b in ding.bodies if b)


@pytest.mark.parametrize("answer", [(403, {"code": "InvalidAuthentication", "message": "不合法的access_token"}),
                                    (400, {"errcode": 40001, "errmsg": "access_token is invalid or not latest"})])
def test_a_token_refused_with_another_status_or_an_older_code_is_replaced_once(opened, ding, answer):
    engine = opened
    ding.add("d1", "Handbook", text="The meeting room code is wombat.")
    _add(engine)
    [row] = engine.sources(A, kind="dingtalk")
    ding.expired_answer = answer
    ding.revoke_tokens()
    ding.edit("d1", text="The meeting room code is platypus.")
    report = engine.sync_source(A, row.id)
    assert report.status == "done" and _actions(report) == {"Handbook.md": "updated"}, report.error
    assert ding.count("POST", "/v1.0/oauth2/accessToken") == 2

    ding.tokens.clear()
    ding.token_lifetime = 0  # every new token is dead at once: one replacement, then a clear failure
    failed = engine.sync_source(A, row.id)
    assert failed.status == "failed" and "did not accept the app's access token" in failed.error, failed.error
    assert APP_SECRET not in failed.error


def test_the_token_is_cached_and_fetched_again_when_it_expires(opened, ding):
    engine = opened
    ding.add("d1", "Handbook", text="The meeting room code is wombat.")
    _add(engine)
    [row] = engine.sources(A, kind="dingtalk")
    engine.sync_source(A, row.id)
    assert ding.count("POST", "/v1.0/oauth2/accessToken") == 1  # one token for both runs
    tokens = {h.get("x-acs-dingtalk-access-token") for m, p, h in ding.requests if p.startswith("/v2.0/")}
    assert len(tokens) == 1

    ding.revoke_tokens()  # DingTalk ended it before our clock did: 401, a new token, the call again
    ding.edit("d1", text="The meeting room code is platypus.")
    report = engine.sync_source(A, row.id)
    assert report.status == "done" and _actions(report) == {"Handbook.md": "updated"}
    assert ding.count("POST", "/v1.0/oauth2/accessToken") == 2

    ding.token_lifetime = 2  # a short-lived token is not used past the middle of its life
    forget_tokens()
    engine.sync_source(A, row.id)
    time.sleep(1.2)
    before = ding.count("POST", "/v1.0/oauth2/accessToken")
    engine.sync_source(A, row.id)
    assert ding.count("POST", "/v1.0/oauth2/accessToken") == before + 1


def test_rate_limits_are_retried_honouring_retry_after(opened, ding):
    engine = opened
    ding.add("d1", "Handbook", text="The meeting room code is wombat.")
    ding.fail_next += [("/v2.0/wiki/nodes", 429, {"code": "Throttling", "message": "too fast"}, {"Retry-After": "1"}),
                       ("/v2.0/doc/me/export/submit", 403,
                        {"code": "Forbidden.AccessDenied.QpsLimitForApi", "message": "qps"}, {"Retry-After": "0"})]
    started = time.monotonic()
    report = _add(engine)
    assert report.status == "done" and _actions(report) == {"Handbook.md": "added"}, report.error
    assert time.monotonic() - started >= 1.0  # the Retry-After was waited
    assert ding.fail_next == []

    [row] = engine.sources(A, kind="dingtalk")
    ding.fail_next += [("/v2.0/wiki/nodes", 429, {"code": "Throttling", "message": "too fast"}, {"Retry-After": "0"})] * 6
    failed = engine.sync_source(A, row.id)
    assert failed.status == "failed" and "rate limit" in failed.error and "Throttling" in failed.error
    assert "wombat" in kb_text(engine, A, "kb")  # nothing removed


def test_a_wrong_secret_is_a_clear_error_naming_the_credential_and_a_new_one_fixes_it(opened, ding):
    engine = opened
    ding.add("d1", "Handbook", text="The library lends laptops.")
    report = _add(engine, "not-the-secret")
    assert report.status == "failed" and "AppSecret" in report.error and APP_KEY in report.error
    assert "not-the-secret" not in report.error
    [row] = engine.sources(A, kind="dingtalk")
    assert row.state == "error" and engine.list_files(A, "kb") == []
    fixed = _add(engine)  # the same source, the new secret
    assert fixed.status == "done" and _actions(fixed) == {"Handbook.md": "added"}
    assert [r.id for r in engine.sources(A, kind="dingtalk")] == [row.id]


def test_the_secret_is_in_no_listing_log_or_plain_storage(opened, ding, caplog, data_dir):
    engine = opened
    ding.add("d1", "Handbook", text="The library lends laptops.")
    caplog.set_level(logging.DEBUG)
    _add(engine)
    _add(engine, "wrong-" + APP_SECRET[:6])  # a failing run logs too
    [row] = engine.sources(A)
    engine.sync_source(A, row.id)
    shown = json.dumps([r.model_dump(mode="json") for r in engine.sources(A)]
                       + [e.model_dump(mode="json") for e in engine.sync_logs(A)])
    assert APP_SECRET not in shown and APP_SECRET not in caplog.text and "wrong-" not in caplog.text
    assert "app_secret" not in row.config
    with engine._db.read() as s:
        [stored] = s.exec(select(SourceSecret)).all()
    assert stored.name == "app_secret" and stored.value.startswith("enc:v1:")
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert b"wrong-" not in path.read_bytes() and APP_SECRET.encode() not in path.read_bytes(), path
    # the secret only ever travelled in the token request's body, never in a URL or a header
    assert all(APP_SECRET not in p and APP_SECRET not in json.dumps(h) for _, p, h in ding.requests)


def test_the_workspaces_are_listed_to_pick_one(opened, ding):
    rows = opened.dingtalk_workspaces(A, APP_KEY, SecretStr(APP_SECRET), OPERATOR)
    assert rows == [{"id": WORKSPACE, "name": "Team handbook",
                     "url": f"https://alidocs.dingtalk.com/i/spaces/{WORKSPACE}/overview"}]


@pytest.mark.parametrize("base", ["http://169.254.169.254", "http://[::ffff:169.254.169.254]", "http://10.20.30.40"])
def test_a_refused_base_url_is_refused_before_a_source_exists(engine, base, connections):
    engine.save_settings(A, {"sources": {"kinds": {"dingtalk": {"base_url": base}}}})
    with pytest.raises(BlockedAddress):
        _add(engine)
    assert engine.sources(A) == []
    assert all(h in ("127.0.0.1", "::1") for h in hosts(connections)), hosts(connections)  # nothing else was tried


def test_loopback_not_opened_by_an_admin_is_never_contacted(engine, ding):
    engine.save_settings(A, {"sources": {"kinds": {"dingtalk": {"base_url": ding.base}}}})
    with pytest.raises(BlockedAddress, match="url_allow_hosts"):
        _add(engine)
    assert ding.requests == [] and engine.sources(A) == []


def test_bad_config_is_refused_before_a_source_exists(opened):
    from core.errors import InvalidInput

    with pytest.raises(InvalidInput, match="workspaceId"):
        opened.add_dingtalk_source(A, "kb", APP_KEY, SecretStr(APP_SECRET), OPERATOR, "")
    with pytest.raises(InvalidInput, match="not a DingTalk id"):
        opened.add_dingtalk_source(A, "kb", APP_KEY, SecretStr(APP_SECRET), OPERATOR, "../x")
    assert opened.sources(A) == []


def test_a_download_url_at_a_refused_address_fails_that_document_alone(opened, ding, connections):
    engine = opened
    ding.add("d1", "Handbook", text="The meeting room code is wombat.")
    ding.download_base = "http://169.254.169.254"  # the metadata address: never fetched
    report = _add(engine)
    assert _actions(report) == {"d1": "failed"} and engine.list_files(A, "kb") == []
    [failed] = report.results
    assert failed.error.startswith("Handbook.md: ") and "169.254.169.254" in failed.error, failed.error
    assert "169.254.169.254" not in hosts(connections)  # refused before any connection
    ding.download_base = ""
    [row] = engine.sources(A, kind="dingtalk")
    assert _actions(engine.sync_source(A, row.id)) == {"Handbook.md": "added"}  # retried by the next sync


def test_a_key_rotation_re_encrypts_the_secret_and_the_source_still_syncs(opened, ding, data_dir):
    from core.secrets.box import SecretBox, SecretError, read_key_file
    from tests.cli.test_cli import run_cli

    engine = opened
    ding.add("d1", "Handbook", text="The library lends laptops.")
    _add(engine)
    old_key = read_key_file(data_dir / "secret.key")[0]
    run_cli(data_dir, "secrets", "rotate")
    with engine._db.read() as s:
        [stored] = s.exec(select(SourceSecret)).all()
    with pytest.raises(SecretError):
        SecretBox(old_key).decrypt(stored.value)
    forget_tokens()  # the secret itself is read again from the store
    ding.add("d2", "Tripods", text="The library lends tripods too.")
    [row] = engine.sources(A, kind="dingtalk")
    assert _actions(engine.sync_source(A, row.id)) == {"Tripods.md": "added"}


@pytest.mark.skipif(not NETTRAP.is_dir(), reason="the shared nettrap is not on this machine")
def test_under_the_nettrap_a_metadata_base_url_sends_nothing(tmp_path):
    """A child process with the shared socket trap: DingTalk's API set to the metadata address (and
    its mapped IPv6 form) or a private one; adding a source and listing knowledge bases are refused, nothing recorded."""
    log = tmp_path / "nettrap.log"
    script = (
        "from pathlib import Path\n"
        "from pydantic import SecretStr\n"
        "from core.errors import CoreError\n"
        "from core.types import SYSTEM_ACTOR as A\n"
        "from tests.engine.conftest import make_engine\n"
        "e = make_engine(Path(%r))\n"
        "e.create_kb(A, 'kb')\n"
        "for base in ('http://169.254.169.254', 'http://[::ffff:169.254.169.254]', 'http://10.20.30.40'):\n"
        "    e.save_settings(A, {'sources': {'kinds': {'dingtalk': {'base_url': base}}}})\n"
        "    for call in (lambda: e.add_dingtalk_source(A, 'kb', 'k', SecretStr('s'), 'op', 'ws'),\n"
        "                 lambda: e.dingtalk_workspaces(A, 'k', SecretStr('s'), 'op')):\n"
        "        try:\n"
        "            call()\n"
        "        except CoreError as exc:\n"
        "            print('refused:', exc.message)\n"
        "e.close()\n"
    ) % str(tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update(PYTHONPATH=f"{NETTRAP}:{REPO}", NETTRAP_LOG=str(log), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not log.exists() or log.read_text() == ""
    assert done.stdout.count("refused:") == 6 and done.stdout.count("never fetched") == 4, done.stdout
    assert done.stdout.count("url_allow_hosts") == 2, done.stdout  # the private one: an admin may open it
