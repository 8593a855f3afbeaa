"""Uploaded bytes (content-addressed) and parsed text, kept on disk beside the database.

Reindex and full-document mode read the parsed text back instead of parsing (and OCR-ing)
the file again.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from core.types import ParsedDoc


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # originals are private like the db
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


class BlobStore:
    def __init__(self, files_dir: Path, parsed_dir: Path):
        self.files_dir = files_dir
        self.parsed_dir = parsed_dir

    def _blob_path(self, sha: str) -> Path:
        if len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
            raise ValueError(f"not a sha256 hex digest: {sha!r}")
        return self.files_dir / sha[:2] / sha

    def put(self, data: bytes) -> str:
        sha = sha256_hex(data)
        path = self._blob_path(sha)
        if not path.exists():
            _atomic_write(path, data)
        return sha

    def get(self, sha: str) -> bytes:
        return self._blob_path(sha).read_bytes()

    def has(self, sha: str) -> bool:
        return self._blob_path(sha).exists()

    def delete_blob(self, sha: str) -> None:
        self._blob_path(sha).unlink(missing_ok=True)

    def put_parsed(self, file_id: str, doc: ParsedDoc) -> None:
        _atomic_write(self.parsed_dir / f"{file_id}.json", json.dumps(doc.to_dict(), ensure_ascii=False).encode())

    def get_parsed(self, file_id: str) -> ParsedDoc | None:
        path = self.parsed_dir / f"{file_id}.json"
        if not path.exists():
            return None
        return ParsedDoc.from_dict(json.loads(path.read_text(encoding="utf-8")))

    def delete_parsed(self, file_id: str) -> None:
        (self.parsed_dir / f"{file_id}.json").unlink(missing_ok=True)
