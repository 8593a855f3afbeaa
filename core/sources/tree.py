"""A tree of files as a source's listing: paths, a cheap change stamp, and a content hash.

A folder and a WebDAV share have no stable file ids, only paths. So an item's id is given once,
when its path is first seen, and kept: an edited file keeps its path (same id, new hash: the sync
engine re-indexes it); a renamed or moved-within file shows up at a new path with the hash of a
held item whose path is gone (it takes that item's id: the sync engine keeps its file and only
renames it); a path whose content matches nothing held is a new item. What the knowledge base
holds (``SourceItemRecord``: name = path, version = content hash) is the truth about ids.

Hashing costs a read (a download for WebDAV), so the cursor keeps each path's stamp (size and
mtime; ETag and last-modified) with its hash: an unchanged stamp reuses the hash unread.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel import select

from core.errors import CoreError
from core.parsers.detect import extension_of
from core.parsers.kinds import SUPPORTED_DESCRIPTION, SUPPORTED_EXTENSIONS
from core.sources.base import Listing, RemoteItem, SourceUnavailable
from core.sources.models import SourceItemRecord


@dataclass(frozen=True)
class TreeFile:
    path: str  # relative to the source's root, "/"-separated
    stamp: str  # changes when the file may have changed (size + mtime, ETag + last-modified)
    mime: str = ""
    modified: str = ""  # when the source says it last changed (ISO 8601): the automatic "modified" field


def supported(path: str) -> str:
    """Why a file is left out ("" when it is read): only the formats the ingest pipeline parses."""
    from core.plugins import FORMATS

    ext = extension_of(path)
    if ext and (ext in SUPPORTED_EXTENSIONS or any(ext in fmt.extensions for _, fmt in FORMATS.items())):
        return ""
    return f"not a supported document type ({SUPPORTED_DESCRIPTION})"


def held_items(parts, source_id: str) -> dict[str, SourceItemRecord]:
    """The items this source holds now, by path."""
    with parts.db.read() as s:
        rows = list(s.exec(select(SourceItemRecord).where(SourceItemRecord.source_id == source_id)))
    return {r.name: r for r in rows}


def _read_cursor(cursor: str) -> dict[str, list[str]]:
    try:
        data = json.loads(cursor) if cursor else {}
    except ValueError:
        return {}
    return data.get("stamps", {}) if isinstance(data, dict) else {}


def tree_listing(files: list[TreeFile], held: dict[str, SourceItemRecord], cursor: str,
                 digest: Callable[[TreeFile], str], *, skipped: dict[str, tuple[str, str]] | None = None,
                 errors: dict[str, str] | None = None, meta: Callable[[TreeFile], dict] | None = None) -> Listing:
    """A full listing of ``files`` with ids kept across edits and renames (see the module's words).

    ``digest(file)`` is the content hash (raises CoreError for that file alone). ``errors`` are
    paths that could not be read: their held items are left as they are."""
    files = sorted(files, key=lambda f: f.path)  # a stable order: what a cancelled sync reached is predictable
    stamps = _read_cursor(cursor)
    errors = dict(errors or {})
    hashes: dict[str, str] = {}
    for f in files:
        cached = stamps.get(f.path)
        if cached and cached[0] == f.stamp:
            hashes[f.path] = cached[1]
            continue
        try:
            hashes[f.path] = digest(f)
        except CoreError as exc:
            errors[f.path] = exc.message
    present = {f.path for f in files}
    # held items whose path is gone: candidates for a rename, by content hash
    vanished: dict[str, list[SourceItemRecord]] = {}
    for path, rec in held.items():
        if path not in present:
            vanished.setdefault(rec.version, []).append(rec)
    items: list[RemoteItem] = []
    failed: dict[str, str] = {}
    for bad, message in errors.items():
        if bad in present:
            continue
        if bad in ("", "."):  # the root itself could not be read: listing nothing would remove everything
            raise SourceUnavailable(f"the source's folder cannot be read: {message}; nothing was removed")
        # a folder (or a file) that could not be read: what is held under it stays as it is
        under = [rec for path, rec in held.items() if path == bad or path.startswith(bad.rstrip("/") + "/")]
        for rec in under:
            failed[rec.item_id] = message
            if rec in vanished.get(rec.version, []):
                vanished[rec.version].remove(rec)
        if not under:
            failed[f"path:{bad}"] = message
    for f in files:
        if f.path not in hashes:
            rec = held.get(f.path)
            failed[rec.item_id if rec else f"path:{f.path}"] = errors[f.path]
            continue
        digest_ = hashes[f.path]
        rec = held.get(f.path)
        if rec is None and vanished.get(digest_):
            rec = vanished[digest_].pop()  # moved or renamed: the same item at a new path
        item_id = rec.item_id if rec else uuid.uuid4().hex
        kept = {"path": f.path, **({"modified_time": f.modified} if f.modified else {})}
        items.append(RemoteItem(item_id, f.path, f.mime, digest_, meta=(meta(f) if meta else kept)))
    new_stamps = {f.path: [f.stamp, hashes[f.path]] for f in files if f.path in hashes}
    return Listing(items=items, full=True, errors=failed, skipped=dict(skipped or {}),
                   cursor=json.dumps({"stamps": new_stamps}, separators=(",", ":")))
