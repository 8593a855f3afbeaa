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


# ------------------------------------------------ refused before anything is changed (issue 36)
def _state(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry's (mode, owner, size), links not followed: what a refusal must leave as it was."""
    out = {".": (stat.S_IMODE(folder.lstat().st_mode), folder.lstat().st_uid, 0)}
    for path in folder.rglob("*"):
        info = path.lstat()
        out[str(path.relative_to(folder))] = (stat.S_IMODE(info.st_mode), info.st_uid, info.st_size)
    return out


def _someone_elses_folder(root: Path) -> Path:
    """A 0755 folder of ours holding readable files, one of them another user's (listed after ours)."""
    folder = root / "shared"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    for name in ("a-notes.txt", "b-report.txt"):
        (folder / name).write_text("keep me as I am")
        os.chmod(folder / name, 0o644)
    (folder / "z-theirs.txt").write_text("another user's")
    os.chown(folder / "z-theirs.txt", OTHER, OTHER)
    return folder


def test_a_folder_holding_another_users_entry_is_refused_before_anything_is_written_or_chmodded(tmp_path):
    folder = _someone_elses_folder(tmp_path)
    before = _state(folder)
    out = run_cli(folder, "kb", "list", check=False)
    assert out.returncode == 9 and f"belongs to uid {OTHER}" in out.stderr and "z-theirs.txt" in out.stderr
    assert _state(folder) == before  # no ragdesk.db, folder still 0755, files still 0644


def test_a_ragdesk_folder_with_a_foreign_entry_deep_inside_is_left_as_it_was(tmp_path):
    data = _ours(tmp_path)
    for path in [data, *data.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    blob_dir = next(p for p in (data / "vectors").rglob("*") if p.is_dir())
    (blob_dir / "planted").write_bytes(b"x")
    os.chown(blob_dir / "planted", OTHER, OTHER)
    before = _state(data)
    with pytest.raises(CoreError, match=f"planted.*belongs to uid {OTHER}"):
        _open(data)
    assert _state(data) == before


def test_a_folder_ragdesk_did_not_make_is_refused_and_left_alone(tmp_path):
    """Run as root, ``--data-dir /etc`` found every entry root's and made ~130 system files 0600."""
    system = tmp_path / "etc"
    system.mkdir()
    os.chmod(system, 0o755)
    for name in ("passwd", "hosts", "ssl"):
        (system / name).write_text("system file")
        os.chmod(system / name, 0o644)
    before = _state(system)
    with pytest.raises(CoreError, match="not a ragdesk data folder and not empty"):
        _open(system)
    assert _state(system) == before


def test_a_data_folder_symlink_is_not_followed_into_a_folder_ragdesk_did_not_make(tmp_path):
    system = tmp_path / "etc"
    system.mkdir()
    os.chmod(system, 0o755)
    (system / "passwd").write_text("system file")
    os.chmod(system / "passwd", 0o644)
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o755)
    os.chmod(empty, 0o755)
    for target in (system, empty):
        link = tmp_path / f"link-to-{target.name}"
        link.symlink_to(target)
        before = _state(target)
        out = run_cli(link, "kb", "list", check=False)
        assert out.returncode == 9 and "symbolic link" in out.stderr, out.stderr
        assert _state(target) == before


def test_an_empty_folder_or_a_link_to_a_ragdesk_folder_is_used(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o755)
    _open(empty).close()
    assert stat.S_IMODE(empty.stat().st_mode) == 0o700 and (empty / ".ragdesk-data").exists()
    link = tmp_path / "link"
    link.symlink_to(_ours(tmp_path))
    engine = _open(link)
    try:
        assert [kb.name for kb in engine.list_kbs(SYSTEM_ACTOR)] == ["kb"]
    finally:
        engine.close()
