"""A server folder read as a source: walked on every sync, each file hashed only when its size or
modification time changed (core/sources/tree.py keeps ids across edits and renames).

Left out and reported: unsupported types, links that lead out of the folder, links to folders
(not followed: a loop or an escape). Hidden files and folders (a leading dot: .git, .DS_Store)
are left out silently. A folder that is gone (an unmounted share) stops the sync, so that a
missing mount never reads as "every file deleted".
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from core.errors import CoreError
from core.ingest.service import Upload
from core.sources.base import Listing, RemoteItem, SourceUnavailable
from core.sources.folder import check_inside
from core.sources.tree import TreeFile, held_items, supported, tree_listing

_CHUNK = 1024 * 1024


@dataclass
class FolderSource:
    parts: Any
    source_id: str
    path: str
    own: Any
    kind: str = "folder"

    def _root(self) -> Path:
        try:
            root = check_inside(self.path, self.own)  # again: the roots or a link may have changed since
        except CoreError as exc:
            raise SourceUnavailable(exc.message) from None
        if not root.is_dir():
            raise SourceUnavailable(f"the folder {self.path} is not there (a share not mounted?); nothing was removed")
        return root

    def listing(self, cursor: str) -> Listing:
        root = self._root()
        files, skipped, errors = [], {}, {}
        for here, dirs, names in os.walk(root, followlinks=False, onerror=lambda e: errors.setdefault(
                _rel(root, Path(e.filename or root)), f"cannot read: {e.strerror}")):
            base = Path(here)
            for d in list(dirs):
                if d.startswith(".") or (base / d).is_symlink():
                    if not d.startswith("."):
                        rel = _rel(root, base / d)
                        skipped[f"path:{rel}"] = (rel, "a link to a folder is not followed")
                    dirs.remove(d)
            for name in names:
                if name.startswith("."):
                    continue
                full = base / name
                rel = _rel(root, full)
                why = self._why_not(root, full) or supported(rel)
                if why:
                    skipped[f"path:{rel}"] = (rel, why)
                    continue
                try:
                    st = full.stat()
                except OSError as exc:
                    errors[rel] = f"cannot read: {exc.strerror}"
                    continue
                files.append(TreeFile(rel, f"{st.st_size}:{st.st_mtime_ns}", mimetypes.guess_type(name)[0] or "",
                                      datetime.fromtimestamp(st.st_mtime, timezone.utc).isoformat()))
        return tree_listing(files, held_items(self.parts, self.source_id), cursor, lambda f: self._digest(root, f),
                            skipped=skipped, errors=errors)

    @staticmethod
    def _why_not(root: Path, full: Path) -> str:
        if full.is_symlink():
            target = Path(os.path.realpath(full))
            if not target.is_relative_to(root):
                return "a link that leads out of the folder"
        if not full.is_file():
            return "not a regular file"
        return ""

    def _file(self, root: Path, rel: str) -> Path:
        full = Path(os.path.realpath(root / rel))
        if not full.is_relative_to(root):  # a file swapped for a link since the walk
            raise CoreError(f"{rel} now leads out of the folder; not read")
        return full

    def _digest(self, root: Path, f: TreeFile) -> str:
        sha = hashlib.sha256()
        try:
            with open(self._file(root, f.path), "rb") as fh:
                while piece := fh.read(_CHUNK):
                    sha.update(piece)
        except OSError as exc:
            raise CoreError(f"cannot read {f.path}: {exc.strerror}") from None
        return sha.hexdigest()[:32]

    def fetch(self, item: RemoteItem) -> Upload:
        root = self._root()
        try:
            data = self._file(root, item.name).read_bytes()
        except OSError as exc:
            raise CoreError(f"cannot read {item.name}: {exc.strerror}") from None
        return Upload(item.name, data)


def _rel(root: Path, full: Path) -> str:
    return full.relative_to(root).as_posix() if full.is_relative_to(root) else str(full)
