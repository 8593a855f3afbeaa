"""Uploaded bytes (content-addressed) and parsed text, kept on disk beside the database.

Reindex and full-document mode read the parsed text back instead of parsing (and OCR-ing)
the file again.

Writes are atomic (a temp file renamed into place) but not synced one by one: a sync per
small file cost more than the rest of its ingestion. ``sync()`` makes everything written
since the last call durable with one call, and ingestion calls it before the commit that
makes a group of files searchable, so a crash (even of the machine) never leaves an indexed
file without its original or parsed text.

Small ones (up to ``SMALL_BLOB_BYTES``) are rows of the database instead (``StoredBlob``), written
in a transaction ingestion opens anyway: creating a file costs 50–750 µs of kernel time on ext4
(``benchmarks/small_files.py``) and a round trip on a network file system, more than the rest of a
one-chunk document's ingestion. A row is durable with its transaction's commit, so ``sync()``
concerns files alone; on PostgreSQL every machine of a team reads the same rows.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from sqlalchemy import delete, insert, select
from sqlmodel import Session

from core.db.models import StoredBlob
from core.types import ParsedDoc

if TYPE_CHECKING:
    from core.db.database import Database

log = logging.getLogger(__name__)

# An original or parsed text up to this size is a database row, a larger one a file: rows keep
# the database small beside the files that need streaming-sized storage (PDFs, scans, decks).
SMALL_BLOB_BYTES = 128 * 1024
_ORIGINAL, _PARSED = "original", "parsed"


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
    """``db``: where small originals and parsed texts go; without one (tools that only read
    files), every one is a file."""

    def __init__(self, files_dir: Path, parsed_dir: Path, db: Database | None = None):
        self.files_dir = files_dir
        self.parsed_dir = parsed_dir
        self.db = db
        self._unsynced: list[Path] = []  # written since the last sync()
        self._lock = threading.Lock()

    def _as_row(self, size: int) -> bool:
        return self.db is not None and size <= SMALL_BLOB_BYTES

    def _write(self, path: Path, data: bytes) -> None:
        _atomic_write(path, data)
        with self._lock:
            self._unsynced.append(path)

    def sync(self) -> None:
        """Make every file written since the last call durable: one syncfs for all of them
        (or, where there is none, an fsync of each file and of its folder). Rows are durable
        with their own commit."""
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

    # -- rows --------------------------------------------------------------------------------

    def _in_session(self, session: Session | None, work) -> None:
        """``work(session)`` in the caller's transaction, or in a write transaction of its own."""
        if session is not None:
            work(session)
            return
        assert self.db is not None
        with self.db.write() as own:
            work(own)

    def _row(self, kind: str, key: str) -> bytes | None:
        if self.db is None:
            return None
        with self.db.read() as s:
            return s.execute(select(StoredBlob.data).where(StoredBlob.kind == kind, StoredBlob.key == key)).scalar()

    def _has_row(self, kind: str, key: str) -> bool:
        if self.db is None:
            return False
        with self.db.read() as s:
            return s.execute(select(StoredBlob.key).where(StoredBlob.kind == kind, StoredBlob.key == key)).first() \
                is not None

    def _delete_row(self, kind: str, key: str) -> None:
        if self.db is not None:
            with self.db.write() as s:
                s.execute(delete(StoredBlob).where(StoredBlob.kind == kind, StoredBlob.key == key))

    def stored_rows(self) -> tuple[set[str], set[str]]:
        """The SHA-256 of every original and the file id of every parsed text kept as a row."""
        if self.db is None:
            return set(), set()
        with self.db.read() as s:
            rows = s.execute(select(StoredBlob.kind, StoredBlob.key)).all()
        return {k for kind, k in rows if kind == _ORIGINAL}, {k for kind, k in rows if kind == _PARSED}

    # -- originals ---------------------------------------------------------------------------

    def _blob_path(self, sha: str) -> Path:
        if len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
            raise ValueError(f"not a sha256 hex digest: {sha!r}")
        return self.files_dir / sha[:2] / sha

    def put(self, data: bytes) -> str:
        """Keep an original; its SHA-256."""
        return self.put_many([data])[0]

    def put_many(self, datas: list[bytes], session: Session | None = None) -> list[str]:
        """Keep several originals: the small ones' rows in one statement (in ``session``'s
        transaction, or one of their own), the others as files."""
        shas = [sha256_hex(data) for data in datas]
        small = {sha: data for sha, data in zip(shas, datas) if self._as_row(len(data))}
        for sha, data in zip(shas, datas):
            if sha not in small:
                path = self._blob_path(sha)
                if not path.exists():
                    self._write(path, data)
        if small:
            def add(s: Session) -> None:
                kept = set(s.execute(select(StoredBlob.key).where(StoredBlob.kind == _ORIGINAL,
                                                                  StoredBlob.key.in_(list(small)))).scalars())
                # an original kept as a file before rows existed stays where it is
                new = [dict(kind=_ORIGINAL, key=sha, data=data) for sha, data in small.items()
                       if sha not in kept and not self._blob_path(sha).exists()]
                if new:
                    s.execute(insert(StoredBlob), new)
            self._in_session(session, add)
        return shas

    def put_each(self, datas: list[bytes]) -> list[Exception | None]:
        """Keep several originals, each failing alone (a disk that refuses one): all together
        first (the small ones' rows in one transaction), one by one if that fails. What stopped
        each, or None."""
        try:
            self.put_many(datas)
            return [None] * len(datas)
        except Exception:
            log.debug("storing originals together failed; storing them one by one", exc_info=True)
        out: list[Exception | None] = []
        for data in datas:
            try:
                self.put(data)
                out.append(None)
            except Exception as exc:
                out.append(exc)
        return out

    def get(self, sha: str) -> bytes:
        path = self._blob_path(sha)
        data = self._row(_ORIGINAL, sha)
        return data if data is not None else path.read_bytes()

    def has(self, sha: str) -> bool:
        return self._blob_path(sha).exists() or self._has_row(_ORIGINAL, sha)

    def delete_blob(self, sha: str) -> None:
        self._blob_path(sha).unlink(missing_ok=True)
        self._delete_row(_ORIGINAL, sha)

    # -- parsed text -------------------------------------------------------------------------

    @staticmethod
    def encode_parsed(doc: ParsedDoc) -> bytes:
        return json.dumps(doc.to_dict(), ensure_ascii=False).encode()

    def parsed_as_row(self, payload: bytes) -> bool:
        """Whether this encoded parsed text would be a row (written with a transaction) or a file."""
        return self._as_row(len(payload))

    def put_parsed(self, file_id: str, doc: ParsedDoc, session: Session | None = None) -> None:
        self.put_parsed_many([(file_id, self.encode_parsed(doc))], session)

    def put_parsed_many(self, items: Iterable[tuple[str, bytes]], session: Session | None = None) -> None:
        """Keep (file id, ``encode_parsed`` bytes) pairs, replacing what each file had: small ones
        as rows in one statement (in ``session``'s transaction, or one of their own), others as files."""
        rows: list[dict] = []
        replaced: list[str] = []  # every file id whose row goes: one place per file (a reindex may move it)
        for file_id, payload in items:
            if self._as_row(len(payload)):
                rows.append(dict(kind=_PARSED, key=file_id, data=payload))
            else:
                self._write(self.parsed_dir / f"{file_id}.json", payload)
            replaced.append(file_id)
        if self.db is not None and replaced:
            def add(s: Session) -> None:
                s.execute(delete(StoredBlob).where(StoredBlob.kind == _PARSED, StoredBlob.key.in_(replaced)))
                if rows:
                    s.execute(insert(StoredBlob), rows)
            self._in_session(session, add)
        for row in rows:  # the file a text had before, once its row is written (rows are read first)
            (self.parsed_dir / f"{row['key']}.json").unlink(missing_ok=True)

    def get_parsed(self, file_id: str) -> ParsedDoc | None:
        data = self._row(_PARSED, file_id)
        if data is None:
            path = self.parsed_dir / f"{file_id}.json"
            if not path.exists():
                return None
            data = path.read_bytes()
        return ParsedDoc.from_dict(json.loads(data.decode("utf-8")))

    def delete_parsed(self, file_id: str) -> None:
        (self.parsed_dir / f"{file_id}.json").unlink(missing_ok=True)
        self._delete_row(_PARSED, file_id)
