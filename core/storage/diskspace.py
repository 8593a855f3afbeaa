"""Free space on the disk that holds the data folder, checked before anything is written.

A full disk did not fail with a message: the embedded vector store (qdrant-edge) writes through
memory-mapped files — its write-ahead log preallocates 32 MB segments and touches a fresh one
when a collection is opened, its segments grow by mapped pages — and a mapped page that the
file system cannot back kills the process with SIGBUS (reproduced on a 400 MB tmpfs filled to
1 MB free: ``search``, ``kb list`` and ``doctor`` died, ``ingest`` ended in a traceback). SQLite
itself reports SQLITE_FULL. So every write path checks the free space first:

- the embedded store refuses to open, create or change a collection below ``STORE_MIN_FREE_MB``
  (two WAL segments) with ``DiskFull``;
- ingestion refuses a file before its original, parsed text, vectors or database rows are
  written when the file's size would leave less than ``parsing.min_free_disk_mb`` free.
"""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import DiskFull

_MB = 1024 * 1024
STORE_MIN_FREE_MB = 64  # qdrant-edge: a fresh 32 MB WAL segment on open, another when one fills


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer may still use on the file system holding ``path`` (or the
    nearest folder above it that exists)."""
    path = Path(path)
    while not path.exists() and path != path.parent:
        path = path.parent
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize


def room_left(path: Path, needed_bytes: int, floor_mb: int) -> tuple[bool, int]:
    """(whether ``needed_bytes`` can be written and ``floor_mb`` stay free, the free bytes now)."""
    free = free_bytes(path)
    return free - needed_bytes >= floor_mb * _MB, free


def check_store_room(root: Path, action: str, floor_mb: int = STORE_MIN_FREE_MB) -> None:
    """Raise DiskFull before the embedded store maps new pages it could not back."""
    enough, free = room_left(root, 0, floor_mb)
    if not enough:
        raise DiskFull(
            f"The disk holding the vector store ({root}) has {free / _MB:.0f} MB free; it needs at least "
            f"{floor_mb} MB to {action} (its write-ahead log preallocates 32 MB segments). "
            "Free some space on that disk, then retry.")


def no_room_for_upload(folder: Path, name: str, size: int, floor_mb: int, for_admin: bool) -> str:
    """Why a file of ``size`` bytes must not be stored in ``folder`` ("" when it may): storing it
    would leave less than ``floor_mb`` (setting parsing.min_free_disk_mb) free. A plain user is
    told the disk is full, an admin the figures and the setting."""
    enough, free = room_left(folder, size, floor_mb)
    if enough:
        return ""
    if not for_admin:
        return f"'{name}' was not stored: the server's disk is almost full. Ask an administrator to free space."
    return (f"'{name}' was not stored: the data folder's disk has {free / _MB:.0f} MB free, and ingestion keeps "
            f"{floor_mb} MB free besides the file's {size / _MB:.1f} MB (setting parsing.min_free_disk_mb): "
            "free some space, or lower the setting")
