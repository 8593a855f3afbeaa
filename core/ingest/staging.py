"""The API's private upload folder: multipart parts are written here while they stream in, and
the implementation (in the API's process or, through the hand-off, in the dashboard's) reads
them from here only.

A staged file is named by the API server, never by the HTTP caller; the reading side still
accepts nothing but a regular file of ours directly inside this folder, so a forged hand-off
request cannot make the engine read any other file.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from core.errors import InvalidInput
from core.upload_limits import MAX_FILES_PER_UPLOAD  # noqa: F401 (where callers found it before)

FOLDER = "api-uploads"


def upload_folder(data_dir: Path) -> Path:
    folder = Path(data_dir) / FOLDER
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


def new_staged_file(data_dir: Path) -> tuple[Path, int]:
    """(path, open descriptor) of a fresh 0600 file only we can read."""
    path = upload_folder(data_dir) / f"up-{secrets.token_hex(16)}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    return path, fd


def read_staged(data_dir: Path, path: str) -> bytes:
    """The bytes of a staged upload; InvalidInput for any path that is not one."""
    folder = upload_folder(data_dir).resolve()
    candidate = Path(path)
    if candidate.parent.resolve() != folder or not candidate.name.startswith("up-"):
        raise InvalidInput("an upload must be a file staged by the API server")
    try:
        fd = os.open(folder / candidate.name, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        raise InvalidInput("the staged upload is gone") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise InvalidInput("an upload must be a file staged by the API server")
        return handle.read()


def remove_staged(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)
