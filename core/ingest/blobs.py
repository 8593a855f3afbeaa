"""Uploaded bytes (content-addressed) and parsed text, kept on disk beside the database.

Reindex and full-document mode read the parsed text back instead of parsing (and OCR-ing)
the file again.

Writes are atomic (a temp file renamed into place) but not synced one by one: a sync per
small file cost more than the rest of its ingestion. ``sync()`` makes everything written
since the last call durable with one call, and ingestion calls it before the commit that
makes a group of files searchable, so a crash (even of the machine) never leaves an indexed
file without its original or parsed text.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import os
import sys
import threading
from pathlib import Path

from core.types import ParsedDoc


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        fd = os.open(tmp, flags, 0o600)  # originals are private like the db
    except FileNotFoundError:  # its folder is made on first use, not checked on every write
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


@functools.cache
def _libc() -> ctypes.CDLL:
    # found once: find_library runs ldconfig in a subprocess (3 ms, more than the sync itself)
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _syncfs(path: Path) -> bool:
    """Flush the whole file system holding ``path`` in one call (Linux syncfs); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    libc = _libc()
    fd = os.open(path, os.O_RDONLY)
    try:
        return libc.syncfs(fd) == 0
    finally:
        os.close(fd)


def _fsync(path: Path) -> None:
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) if path.is_dir() else os.O_RDONLY
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class BlobStore:
    def __init__(self, files_dir: Path, parsed_dir: Path):
        self.files_dir = files_dir
        self.parsed_dir = parsed_dir
        self._unsynced: list[Path] = []  # written since the last sync()
        self._lock = threading.Lock()

    def _write(self, path: Path, data: bytes) -> None:
        _atomic_write(path, data)
        with self._lock:
            self._unsynced.append(path)

    def sync(self) -> None:
        """Make every file written since the last call durable: one syncfs for all of them
        (or, where there is none, an fsync of each file and of its folder)."""
        with self._lock:
            pending, self._unsynced = self._unsynced, []
        if not pending:
            return
        roots = {os.stat(d).st_dev: d for d in (self.files_dir, self.parsed_dir) if d.exists()}
        if roots and all(_syncfs(d) for d in roots.values()):
            return
        for path in pending:
            if path.exists():
                _fsync(path)
        for folder in {path.parent for path in pending}:
            _fsync(folder)

    def _blob_path(self, sha: str) -> Path:
        if len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
            raise ValueError(f"not a sha256 hex digest: {sha!r}")
        return self.files_dir / sha[:2] / sha

    def put(self, data: bytes) -> str:
        sha = sha256_hex(data)
        path = self._blob_path(sha)
        if not path.exists():
            self._write(path, data)
        return sha

    def get(self, sha: str) -> bytes:
        return self._blob_path(sha).read_bytes()

    def has(self, sha: str) -> bool:
        return self._blob_path(sha).exists()

    def delete_blob(self, sha: str) -> None:
        self._blob_path(sha).unlink(missing_ok=True)

    def put_parsed(self, file_id: str, doc: ParsedDoc) -> None:
        self._write(self.parsed_dir / f"{file_id}.json", json.dumps(doc.to_dict(), ensure_ascii=False).encode())

    def get_parsed(self, file_id: str) -> ParsedDoc | None:
        path = self.parsed_dir / f"{file_id}.json"
        if not path.exists():
            return None
        return ParsedDoc.from_dict(json.loads(path.read_text(encoding="utf-8")))

    def delete_parsed(self, file_id: str) -> None:
        (self.parsed_dir / f"{file_id}.json").unlink(missing_ok=True)
