"""A WebDAV folder as a synced source, against a real WebDAV server (WsgiDAV from PyPI) on
127.0.0.1 with basic auth, opened to the URL guard as an admin would. Import, every kind of change,
a wrong password, the password kept out of every listing and log, and refused addresses refused
before any connection (the server counts what reaches it; a child process runs under the nettrap)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlmodel import select

from core.errors import BlockedAddress
from core.sources.models import SourceSecret
from core.types import SYSTEM_ACTOR
from tests.security.conftest import connections, hosts  # noqa: F401 (connections: a fixture)
from tests.sources.conftest import kb_text
from tests.sources.webdav_server import PASSWORD, USER, webdav_server

A = SYSTEM_ACTOR
NETTRAP = Path("/work/shared/tools/nettrap")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def dav(tmp_path):
    root = tmp_path / "share"
    root.mkdir()
    with webdav_server(root) as server:
        yield server


@pytest.fixture
def opened(engine):
    engine.save_settings(A, {"parsing": {"url_allow_hosts": ["127.0.0.1"]}})
    return engine


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _actions(report) -> dict[str, str]:
    return {r.name: r.action for r in report.results}


def test_import_then_every_change_synced(opened, dav):
    engine, root = opened, dav.root
    _write(root / "Handbook.md", "# Handbook\n\nThe meeting room code is wombat.")
    _write(root / "Policies" / "travel plan.txt", "Trains are booked two weeks ahead for the koala team.")
    _write(root / "Policies" / "old.txt", "The parking garage closes at nine for the quokka crew.")
    (root / "tool.exe").write_bytes(b"MZ\x90\x00binary")
    first = engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr(PASSWORD))
    assert first.status == "done", first.error
    assert _actions(first) == {"Handbook.md": "added", "Policies/travel plan.txt": "added", "Policies/old.txt": "added",
                               "tool.exe": "skipped"}
    assert "wombat" in kb_text(engine, A, "kb") and "koala" in kb_text(engine, A, "kb")
    [row] = engine.sources(A, kind="webdav")
    assert row.title == f"WebDAV: {USER}@127.0.0.1/dav/" and row.state == "ok"
    file_of = {f.meta["source_item_id"]: f.id for f in engine.list_files(A, "kb")}

    gets = sum(1 for m, _ in dav.requests if m == "GET")
    assert {k: v for k, v in _actions(engine.sync_source(A, row.id)).items() if v != "skipped"} == {}
    assert sum(1 for m, _ in dav.requests if m == "GET") == gets  # unchanged ETags: nothing downloaded

    _write(root / "Handbook.md", "# Handbook\n\nThe meeting room code is now platypus.")  # edited (new length)
    (root / "Policies" / "travel plan.txt").rename(root / "Policies" / "trains.txt")  # renamed
    (root / "Policies" / "old.txt").unlink()  # deleted
    _write(root / "New" / "menu.md", "Thursday is dumpling day.")  # new
    second = engine.sync_source(A, row.id)
    assert second.status == "done", second.error
    assert _actions(second) == {"Handbook.md": "updated", "Policies/trains.txt": "renamed", "Policies/old.txt": "removed",
                                "New/menu.md": "added", "tool.exe": "skipped"}
    renamed = next(r for r in second.results if r.action == "renamed")
    assert file_of[renamed.item_id] == renamed.file_id  # kept, not deleted and added
    text = kb_text(engine, A, "kb")
    assert "platypus" in text and "wombat" not in text and "quokka" not in text and "dumpling" in text and "koala" in text
    assert engine.doctor(A).healthy
    assert [e.status for e in engine.sync_logs(A, row.id)] == ["done", "done", "done"]


def test_a_wrong_password_is_a_clear_error_and_a_new_one_fixes_the_source(opened, dav):
    engine = opened
    _write(dav.root / "a.md", "The library lends laptops.")
    report = engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr("not-the-password"))
    assert report.status == "failed" and "refused the user name or password" in report.error and "401" in report.error
    [row] = engine.sources(A, kind="webdav")
    assert row.state == "error" and engine.list_files(A, "kb") == []
    fixed = engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr(PASSWORD))  # the same source, new password
    assert fixed.status == "done" and _actions(fixed) == {"a.md": "added"}
    assert [r.id for r in engine.sources(A, kind="webdav")] == [row.id]


def test_the_password_is_in_no_listing_log_or_plain_storage(opened, dav, caplog, data_dir):
    engine = opened
    _write(dav.root / "a.md", "The library lends laptops.")
    caplog.set_level(logging.DEBUG)
    engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr(PASSWORD))
    engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr("wrong-" + PASSWORD[:6]))  # a failing run logs too
    [row] = engine.sources(A, kind="webdav")
    engine.sync_source(A, row.id)
    shown = json.dumps([r.model_dump(mode="json") for r in engine.sources(A)]
                       + [e.model_dump(mode="json") for e in engine.sync_logs(A)])
    assert PASSWORD not in shown and PASSWORD not in caplog.text and "wrong-" not in caplog.text
    assert "password" not in row.config
    with engine._db.read() as s:
        [stored] = s.exec(select(SourceSecret)).all()
    assert stored.value.startswith("enc:v1:") and PASSWORD[:6] not in stored.value
    for path in data_dir.rglob("*"):  # no file of the data folder holds it in plain (the database included)
        if path.is_file():
            assert b"wrong-" not in path.read_bytes() and PASSWORD.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("url", ["http://169.254.169.254/remote.php/dav/", "http://[::ffff:169.254.169.254]/dav/",
                                 "http://10.20.30.40/dav/"])
def test_a_refused_address_is_refused_before_a_source_exists(engine, url, connections):
    with pytest.raises(BlockedAddress):
        engine.add_webdav_source(A, "kb", url, USER, SecretStr(PASSWORD))
    assert engine.sources(A) == []
    assert all(h in ("127.0.0.1", "::1") for h in hosts(connections)), hosts(connections)  # nothing else was tried


def test_loopback_not_opened_by_an_admin_is_never_contacted(engine, dav):
    with pytest.raises(BlockedAddress, match="url_allow_hosts"):
        engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr(PASSWORD))
    assert dav.requests == [] and engine.sources(A) == []


@pytest.mark.skipif(not NETTRAP.is_dir(), reason="the shared nettrap is not on this machine")
def test_under_the_nettrap_a_metadata_webdav_url_sends_nothing(tmp_path):
    """A child process with the shared socket trap: adding a WebDAV source at the metadata address
    (also as its mapped IPv6 form) and at a private one must be refused with nothing recorded by the trap."""
    log = tmp_path / "nettrap.log"
    script = (
        "from pathlib import Path\n"
        "from pydantic import SecretStr\n"
        "from core.errors import CoreError\n"
        "from core.types import SYSTEM_ACTOR as A\n"
        "from tests.engine.conftest import make_engine\n"
        "e = make_engine(Path(%r))\n"
        "e.create_kb(A, 'kb')\n"
        "for url in ('http://169.254.169.254/dav/', 'http://[::ffff:169.254.169.254]/dav/', 'http://10.20.30.40/dav/'):\n"
        "    try:\n"
        "        e.add_webdav_source(A, 'kb', url, 'u', SecretStr('p'))\n"
        "    except CoreError as exc:\n"
        "        print('refused:', exc.message)\n"
        "e.close()\n"
    ) % str(tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update(PYTHONPATH=f"{NETTRAP}:{REPO}", NETTRAP_LOG=str(log), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not log.exists() or log.read_text() == ""
    assert done.stdout.count("refused:") == 3 and done.stdout.count("never fetched") == 2, done.stdout
    assert done.stdout.count("url_allow_hosts") == 1, done.stdout  # the private one: an admin may open it


def test_a_key_rotation_re_encrypts_the_password_and_the_source_still_syncs(opened, dav, data_dir):
    from core.secrets.box import SecretBox, SecretError, read_key_file
    from tests.cli.test_cli import run_cli

    engine = opened
    _write(dav.root / "a.md", "The library lends laptops.")
    engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr(PASSWORD))
    old_key = read_key_file(data_dir / "secret.key")[0]
    run_cli(data_dir, "secrets", "rotate")  # its own process: nothing of the sources imported before it runs
    with engine._db.read() as s:
        [stored] = s.exec(select(SourceSecret)).all()
    with pytest.raises(SecretError):
        SecretBox(old_key).decrypt(stored.value)
    _write(dav.root / "b.md", "The library lends tripods too.")
    [row] = engine.sources(A, kind="webdav")
    assert _actions(engine.sync_source(A, row.id)) == {"b.md": "added"}  # the running engine reads the new key
