"""Ingest files, folders and URLs named on the server's disk (the CLI's ``ingest``).

Each item fails alone, with a reason: a name that is not valid UTF-8, a file over the upload
cap (decided by stat, before a byte is read), an unreadable file, a URL scheme other than
http(s). Files are read a group at a time, so a folder of large files is never in memory at once.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable

from core.ingest.uploads import IngestResult, Upload
from core.names import file_display_name, printable
from core.upload_limits import UploadLimits


def ingest_paths(ingest: Callable[[list[Upload]], list[IngestResult]], paths: list[Path | str],
                 limits: UploadLimits) -> list[IngestResult]:
    """``ingest`` indexes one group of uploads; one result per file or URL, in that order of groups."""
    results: list[IngestResult] = []
    urls: list[Upload] = []
    files: list[Path] = []
    for source in paths:
        text = str(source)
        if _URL_SCHEME.match(text):
            if text.lower().startswith(("http://", "https://")):
                urls.append(Upload.from_url(text))
            else:
                scheme = text.split("://", 1)[0]
                results.append(IngestResult(printable(text), "failed",
                                            error=f"only http and https URLs can be fetched, not {scheme}://"))
        else:
            files.extend(_expand([Path(source)]))
    if urls:
        results.extend(ingest(urls))
    group: list[Upload] = []
    group_bytes = 0
    for path in files:
        refused, size = _refuse_path(path, limits)
        if refused is not None:
            results.append(refused)
            continue
        if group and group_bytes + size > _READ_GROUP_BYTES:
            results.extend(ingest(group))
            group, group_bytes = [], 0
        try:
            group.append(Upload(path.name, path.read_bytes()))
            group_bytes += size
        except OSError as exc:
            results.append(IngestResult(printable(str(path)), "failed", error=f"cannot read file: {exc.strerror}"))
    if group:
        results.extend(ingest(group))
    return results


_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_READ_GROUP_BYTES = 64 * 1024 * 1024  # files read into memory per ingest call


def _refuse_path(path: Path, limits: UploadLimits) -> tuple[IngestResult | None, int]:
    """(a failed result, or None, and the file's size) — decided from the name and stat alone."""
    shown = file_display_name(str(path))
    try:
        os.fsencode(path.name).decode("utf-8")
    except UnicodeDecodeError:
        return IngestResult(shown, "failed", error=f"the file name of '{shown}' is not valid UTF-8; rename the file"), 0
    try:
        size = path.stat().st_size
    except OSError as exc:
        return IngestResult(shown, "failed", error=f"cannot read file: {exc.strerror}"), 0
    too_large = limits.too_large(path.name, size)
    if too_large is not None:
        return IngestResult(shown, "failed", error=too_large.message, error_key=too_large.key,
                            error_params=too_large.params), size
    return None, size


def _expand(paths: list[Path]) -> list[Path]:
    """Files as given, folders expanded to the files inside them (sorted, hidden ones skipped)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)))
        else:
            out.append(p)
    return out
