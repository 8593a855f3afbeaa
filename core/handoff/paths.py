"""Where the CLI hand-off socket lives, and which socket files may be used (see core/handoff/channel.py).

The socket goes in the data folder, or, when that path is too long for AF_UNIX, in a per-user
0700 folder ($XDG_RUNTIME_DIR, else /tmp/ragdesk-<uid>) whose owner and mode are verified; a
folder or socket owned by someone else is never used, and a dead socket of ours is cleared.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import stat
from pathlib import Path

from core.errors import StoreError

log = logging.getLogger("core.handoff")

SOCKET_NAME = "engine.sock"
_MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 107 bytes on Linux


def private_dir(environ: dict | None = None) -> Path:
    """A folder only this OS user can enter: $XDG_RUNTIME_DIR, else /tmp/ragdesk-<uid> (made 0700).

    Raises StoreError when the folder exists but belongs to someone else or is open to others
    (someone may be waiting there for our socket)."""
    env = os.environ if environ is None else environ
    uid = os.getuid()
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        try:
            verify_private_dir(Path(runtime), uid)
            return Path(runtime)
        except StoreError as exc:
            log.warning("not using XDG_RUNTIME_DIR for the hand-off socket: %s", exc.message)
    folder = Path("/tmp") / f"ragdesk-{uid}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    verify_private_dir(folder, uid)
    return folder


def verify_private_dir(folder: Path, uid: int) -> None:
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise StoreError(f"cannot use {folder} for the hand-off socket: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{folder} is not a folder (a symlink or file is in its place): refusing it")
    if info.st_uid != uid:
        raise StoreError(f"{folder} belongs to uid {info.st_uid}, not to you (uid {uid}): refusing it")
    if info.st_mode & 0o077:
        raise StoreError(f"{folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}): refusing it")


def socket_candidates(data_dir: Path) -> list[Path]:
    """Where the socket may be, in order: the data folder, then the per-user private folder."""
    path = Path(data_dir).resolve() / SOCKET_NAME
    out = [path] if len(os.fsencode(str(path))) <= _MAX_SOCKET_PATH else []
    digest = hashlib.sha256(os.fsencode(str(path))).hexdigest()[:16]
    try:
        out.append(private_dir() / f"ragdesk-{digest}.sock")
    except StoreError as exc:
        if not out:
            raise
        log.warning("%s", exc.message)
    return out


def socket_path(data_dir: Path) -> Path:
    """The first place the socket may be (what the server tries first)."""
    return socket_candidates(data_dir)[0]


def owned_socket(path: Path, uid: int) -> bool:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    return stat.S_ISSOCK(info.st_mode) and info.st_uid == uid


def find_socket(data_dir: Path) -> Path | None:
    """The socket a client may connect to: a real socket owned by this user, else None."""
    uid = os.getuid()
    for path in socket_candidates(data_dir):
        if owned_socket(path, uid):
            return path
    return None


def _is_alive(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
            return True
        except OSError:
            return False


def claim_path(path: Path, uid: int) -> bool:
    """Whether the server may bind ``path`` (clearing a dead socket of ours first)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    if info.st_uid != uid:
        log.warning("hand-off: %s belongs to uid %d; not using it", path, info.st_uid)
        return False
    if stat.S_ISSOCK(info.st_mode) and not _is_alive(path):
        path.unlink()  # a stale socket of a dead process of ours
        return True
    log.warning("hand-off: %s is in use or is not a socket; not using it", path)
    return False
