"""Threat: another local user on the machine reads what ragdesk stores — by creating the data
folder (or its key and database files) before ragdesk first starts, so that they own them and can
later decrypt the saved API keys and read document text; or through folders and files left
readable (``files/``, ``vectors/`` holding chunk text, what SQLite and the embedded vector engine
create themselves).

These tests run as root here: the other user is uid 65534 (nobody), made the owner with chown."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from core.config import RuntimeConfig
from core.engine import Engine
from core.errors import CoreError
from core.ingest.blobs import SMALL_BLOB_BYTES
from core.types import SYSTEM_ACTOR
from tests.cli.test_cli import run_cli
from tests.engine.conftest import HANDBOOK_MD, make_engine, md

OTHER = 65534


@pytest.fixture(autouse=True)
def _embedded(monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)


def _squatted(root: Path) -> Path:
    """What another user prepares: a world-writable data folder with their own key and empty DB files."""
    data = root / "data"
    data.mkdir()
    os.chmod(data, 0o777)
    (data / "secret.key").write_bytes(Fernet.generate_key())
    for name in ("ragdesk.db", "ragdesk.db-wal", "ragdesk.db-shm"):
        (data / name).write_bytes(b"")
    for path in (data, *data.iterdir()):
        os.chown(path, OTHER, OTHER)
    os.chmod(data / "secret.key", 0o644)
    return data


def _ours(root: Path) -> Path:
    """A data folder ragdesk made and used, then closed."""
    data = root / "data"
    engine = make_engine(data)
    engine.create_kb(SYSTEM_ACTOR, "kb")
    engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD)])
    engine.close()
    return data


def _open(data: Path) -> Engine:
    return Engine(RuntimeConfig.from_env(data))


def _modes(data: Path) -> dict[str, int]:
    out = {}
    for path in [data, *data.rglob("*")]:
        info = path.lstat()
        if stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode):
            out[str(path.relative_to(data)) + ("/" if stat.S_ISDIR(info.st_mode) else "")] = stat.S_IMODE(info.st_mode)
    return out


def test_a_data_folder_made_by_another_user_is_refused_with_how_to_fix_it(tmp_path):
    data = _squatted(tmp_path)
    with pytest.raises(CoreError, match=rf"{data}.*belongs to uid {OTHER}.*chown") as refused:
        _open(data)
    assert "not to the user running ragdesk" in refused.value.message
    assert (data / "ragdesk.db").stat().st_size == 0  # nothing was written into their files


@pytest.mark.parametrize("name", ["secret.key", "ragdesk.db", "ragdesk.db-wal", "ragdesk.db-shm"])
def test_a_key_or_database_file_owned_by_another_user_is_refused(tmp_path, name):
    data = _ours(tmp_path)
    if not (data / name).exists():
        (data / name).write_bytes(b"")
    os.chown(data / name, OTHER, OTHER)
    with pytest.raises(CoreError, match=rf"{name}.*belongs to uid {OTHER}"):
        _open(data)


@pytest.mark.parametrize("name, mode", [(".", 0o777), (".", 0o770), ("secret.key", 0o666), ("ragdesk.db", 0o620)])
def test_a_data_folder_key_or_database_writable_by_others_is_refused(tmp_path, name, mode):
    data = _ours(tmp_path)
    os.chmod(data / name, mode)
    with pytest.raises(CoreError, match=r"writable by other users.*chmod"):
        _open(data)


def test_the_cli_exits_with_the_reason_and_the_dashboard_shows_it(tmp_path, monkeypatch):
    data = _squatted(tmp_path)
    out = run_cli(data, "kb", "list", check=False)
    assert out.returncode != 0 and out.stderr.startswith("error: ") and "Traceback" not in out.stderr
    assert f"belongs to uid {OTHER}" in out.stderr

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    monkeypatch.setenv("RAGDESK_DATA_DIR", str(data))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert any(f"belongs to uid {OTHER}" in e.value for e in at.error), [e.value for e in at.error]
    st.cache_resource.clear()


def test_every_folder_is_0700_and_every_file_0600_including_the_engines_own(tmp_path):
    engine = make_engine(tmp_path / "data")
    try:
        engine.create_kb(SYSTEM_ACTOR, "kb")
        # a small original is a database row; one above SMALL_BLOB_BYTES is a file of its own
        long_text = "\n\n".join(f"Section {i}. {HANDBOOK_MD}" for i in range(SMALL_BLOB_BYTES // len(HANDBOOK_MD) + 2))
        engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD), md("long.md", long_text)])
        modes = _modes(engine.config.data_dir)
    finally:
        engine.close()
    assert any(k.startswith("vectors/") and not k.endswith("/") for k in modes)  # the vector engine's files
    assert any(k.startswith("files/") and not k.endswith("/") for k in modes)
    assert any(k.startswith("parsed/") and not k.endswith("/") for k in modes)
    wrong = {k: oct(m) for k, m in modes.items() if m != (0o700 if k.endswith("/") else 0o600)}
    assert wrong == {}


def test_an_existing_tree_left_readable_is_tightened_at_start(tmp_path):
    data = _ours(tmp_path)
    for path in [data, *data.rglob("*")]:
        if path.is_dir():
            os.chmod(path, 0o755)
        elif path.is_file():
            os.chmod(path, 0o644)
    _open(data).close()
    wrong = {k: oct(m) for k, m in _modes(data).items() if m != (0o700 if k.endswith("/") else 0o600)}
    assert wrong == {}


def test_commands_that_only_read_the_folder_and_key_rotation_refuse_it_too(tmp_path):
    from core.secrets.rotation import rotate

    data = _squatted(tmp_path)
    key_before = (data / "secret.key").read_bytes()
    out = run_cli(data, "parse", "http://127.0.0.1:9/page", check=False)  # would read its url_allow_hosts
    assert out.returncode != 0 and f"belongs to uid {OTHER}" in out.stderr
    with pytest.raises(CoreError, match=f"belongs to uid {OTHER}"):
        rotate(RuntimeConfig.from_env(data))
    assert (data / "secret.key").read_bytes() == key_before and (data / "ragdesk.db").stat().st_size == 0
