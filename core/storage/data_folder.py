"""The data folder is ours alone: checked, tightened and kept private while an engine has it open.

It holds the secret key, the database (settings with encrypted keys, chats), uploaded originals,
parsed text and the vector store (chunk text). Another local user who could create it first, or
write into it, could later decrypt the keys or read the documents, so at start:

- the data folder, ``secret.key`` and the SQLite files (``.db``, ``-wal``, ``-shm``,
  ``-journal``) must belong to the user running ragdesk and must not be writable by group or
  others; otherwise ``DataFolderUnsafe`` says what is wrong and how to fix it (nothing is read
  from, or written into, a file someone else controls);
- everything else in the tree that belongs to another user is refused the same way, and what is
  ours is tightened: folders 0700, files 0600 (also a tree left readable by an older release or a
  restored backup);
- while an engine is open the process umask is 077, so what the embedded vector engine (Rust,
  whose file modes we cannot pass) and SQLite create is private as well; the previous umask comes
  back when the last engine of the process closes.

Symbolic links inside the tree are left alone (never followed to chmod their target).
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from core.errors import StoreError

KEY_FILE = "secret.key"
SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


class DataFolderUnsafe(StoreError):
    """The data folder, its key or a database file is not private to the user running ragdesk."""


def check_private(path: Path, what: str) -> os.stat_result:
    """``path`` exists, is ours and is not writable by group or others; DataFolderUnsafe otherwise."""
    info = os.stat(path)
    uid = os.getuid()
    folder = stat.S_ISDIR(info.st_mode)
    if info.st_uid != uid:
        raise DataFolderUnsafe(
            f"{what} {path} belongs to uid {info.st_uid}, not to the user running ragdesk (uid {uid}): another "
            "local user may have made it to read what ragdesk stores. Check it; if it is yours, run "
            f"`chown {'-R ' if folder else ''}{uid} {path}`, otherwise remove it (or set RAGDESK_DATA_DIR elsewhere)")
    if info.st_mode & _OTHERS_WRITE:
        raise DataFolderUnsafe(
            f"{what} {path} is writable by other users (mode {stat.S_IMODE(info.st_mode):o}): they could have "
            f"replaced what is in it. Check it, then run `chmod {'700' if folder else '600'} {path}`")
    return info


def _tighten(path: Path, info: os.stat_result, mode: int) -> None:
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, mode)


def tighten_tree(root: Path) -> None:
    """Every folder under ``root`` 0700, every file 0600; refuse what belongs to another user."""
    uid = os.getuid()
    pending = [os.fspath(root)]
    while pending:  # os.scandir: a start over tens of thousands of blobs stays cheap
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_symlink():
                    continue  # never followed
                folder = entry.is_dir(follow_symlinks=False)
                if not folder and not entry.is_file(follow_symlinks=False):
                    continue  # the hand-off socket keeps its own mode
                info = entry.stat(follow_symlinks=False)
                if info.st_uid != uid:
                    check_private(Path(entry.path), "a file in the data folder")  # raises, naming it
                if stat.S_IMODE(info.st_mode) & 0o077:
                    os.chmod(entry.path, 0o700 if folder else 0o600)
                if folder:
                    pending.append(entry.path)


def sqlite_path(database_url: str) -> Path | None:
    return Path(database_url[len("sqlite:///"):]) if database_url.startswith("sqlite:///") else None


def check_data_folder(data_dir: Path, database: Path | None) -> None:
    """The checks alone (for a command that only reads): the folder, its key and the SQLite files
    that exist are ours and not writable by others."""
    if data_dir.exists():
        check_private(data_dir, "the data folder")
    if (data_dir / KEY_FILE).exists():
        check_private(data_dir / KEY_FILE, "the secret key file")
    for suffix in SQLITE_SUFFIXES if database is not None else ():
        part = database.with_name(database.name + suffix)
        if part.exists():
            check_private(part, "the database file")


class PrivateDataFolder:
    """Held by an open engine: the checks ran, the tree is tight, the umask is 077 until ``close``."""

    def __init__(self, data_dir: Path, database: Path | None) -> None:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if database is not None:
            database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        check_data_folder(data_dir, database)  # before anything is created in it
        if database is not None:
            # made 0600 before SQLite opens it: its -wal and -shm files take the database's mode
            os.close(os.open(database, os.O_WRONLY | os.O_CREAT, 0o600))
            check_data_folder(data_dir, database)  # whoever made it, it must be ours
            for suffix in SQLITE_SUFFIXES:
                part = database.with_name(database.name + suffix)
                if part.exists():
                    _tighten(part, part.stat(), 0o600)
        _tighten(data_dir, data_dir.stat(), 0o700)
        tighten_tree(data_dir)
        _hold_private_umask()  # last: nothing above leaves it held when it raises
        self._open = True

    def close(self) -> None:
        if self._open:
            self._open = False
            _release_private_umask()


_umask_lock = threading.Lock()
_umask_holders = 0
_umask_before = 0


def _hold_private_umask() -> None:
    global _umask_holders, _umask_before
    with _umask_lock:
        if _umask_holders == 0:
            _umask_before = os.umask(0o077)
            os.umask(_umask_before | 0o077)
        _umask_holders += 1


def _release_private_umask() -> None:
    global _umask_holders
    with _umask_lock:
        _umask_holders -= 1
        if _umask_holders == 0:
            os.umask(_umask_before)
