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

Nothing is changed before everything is checked: every entry's owner is read first, and a
refusal leaves the folder exactly as it was. Only a folder ragdesk made (its marker file, or the
key, database or store folders an earlier release left) or one given empty is ever tightened: a
non-empty folder of other files (``--data-dir /etc``) is refused, and so is a data-folder path that
is a symbolic link to a folder ragdesk did not make. Symbolic links inside the tree are left alone
(never followed to chmod their target).
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from core.errors import StoreError

KEY_FILE = "secret.key"
MARKER = ".ragdesk-data"  # written into a folder ragdesk made, or was given empty
SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")
# what says a folder is ragdesk's: the marker, or what an earlier release (before the marker) made
_SIGNS = (MARKER, KEY_FILE, "ragdesk.db", "vectors", "files", "parsed")
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


def _loose_entries(root: Path) -> list[tuple[str, int]]:
    """Read only: every entry under ``root`` (links not followed) is ours, or DataFolderUnsafe names
    the first that is not; returns the (path, mode) of those to tighten."""
    uid, loose = os.getuid(), []
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
                    loose.append((entry.path, 0o700 if folder else 0o600))
                if folder:
                    pending.append(entry.path)
    return loose


def tighten_tree(root: Path) -> None:
    """Every folder under ``root`` 0700, every file 0600; refuse what belongs to another user —
    all of it checked before the first change."""
    for path, mode in _loose_entries(root):
        os.chmod(path, mode)


def is_ragdesk_folder(folder: Path) -> bool:
    return any(os.path.lexists(folder / name) for name in _SIGNS)


def _check_made_by_us(data_dir: Path, link: Path | None) -> None:
    """Refuse a folder ragdesk did not make (unless empty) and a link to one, before any change."""
    if link is not None and not (data_dir.is_dir() and is_ragdesk_folder(data_dir)):
        raise DataFolderUnsafe(
            f"the data folder {link} is a symbolic link to {data_dir}, which is not a ragdesk data folder: ragdesk "
            "does not follow it (it would make that folder private). Point RAGDESK_DATA_DIR or --data-dir at the "
            "folder itself, or at a new path")
    if data_dir.is_dir() and not is_ragdesk_folder(data_dir):
        with os.scandir(data_dir) as entries:
            names = []
            for entry in entries:  # another user's entry is named first: the likelier mistake to fix
                if not entry.is_symlink() and entry.stat(follow_symlinks=False).st_uid != os.getuid():
                    check_private(Path(entry.path), "a file in the data folder")
                names.append(entry.name)
        first = min(names, default=None)
        if first is not None:
            raise DataFolderUnsafe(
                f"{data_dir} is not a ragdesk data folder and not empty (it holds {first!r}, among others): ragdesk "
                "would make everything in it private. Choose an empty folder or a new path for RAGDESK_DATA_DIR "
                "or --data-dir")


def sqlite_path(database_url: str) -> Path | None:
    return Path(database_url[len("sqlite:///"):]) if database_url.startswith("sqlite:///") else None


def check_data_folder(data_dir: Path, database: Path | None, link: Path | None = None) -> None:
    """The checks alone (for a command that only reads): the folder, its key and the SQLite files
    that exist are ours and not writable by others. ``link``: the path given, when it was a
    symbolic link to ``data_dir``."""
    if data_dir.exists() or link is not None:
        check_private(data_dir, "the data folder")
        _check_made_by_us(data_dir, link)
    if (data_dir / KEY_FILE).exists():
        check_private(data_dir / KEY_FILE, "the secret key file")
    for suffix in SQLITE_SUFFIXES if database is not None else ():
        part = database.with_name(database.name + suffix)
        if part.exists():
            check_private(part, "the database file")


class PrivateDataFolder:
    """Held by an open engine: the checks ran, the tree is tight, the umask is 077 until ``close``."""

    def __init__(self, data_dir: Path, database: Path | None, link: Path | None = None) -> None:
        # every check before the first change: a refused folder is left exactly as it was
        check_data_folder(data_dir, database, link)
        loose = _loose_entries(data_dir) if data_dir.is_dir() else []
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not os.path.lexists(data_dir / MARKER):  # ours from now on (see is_ragdesk_folder)
            os.close(os.open(data_dir / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        if database is not None:
            database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            check_data_folder(data_dir, database)  # a database outside the folder: its parent may be new
            # made 0600 before SQLite opens it: its -wal and -shm files take the database's mode
            os.close(os.open(database, os.O_WRONLY | os.O_CREAT, 0o600))
            check_data_folder(data_dir, database)  # whoever made it, it must be ours
            for suffix in SQLITE_SUFFIXES:
                part = database.with_name(database.name + suffix)
                if part.exists():
                    _tighten(part, part.stat(), 0o600)
        _tighten(data_dir, data_dir.stat(), 0o700)
        for path, mode in loose:
            os.chmod(path, mode)
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
