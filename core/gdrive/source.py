"""A Drive selection (files and folders, walked recursively) as a synced source.

Full listing: walk the selection (trashed files are skipped, shortcuts never followed out of
it). Changes: from the saved ``changes`` page token — a file whose parent is a folder of the
tree is changed/new, one whose parents are not (moved out) or that is trashed or removed is
gone. A change to a folder of the tree (moved, trashed, created) can move a whole subtree, so
it falls back to a full listing; so does an expired token (HTTP 410). The cursor this source
hands back holds the page token and the tree's folder ids. The start token is taken *before* a full
walk, so nothing that changes during the walk is missed.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

from core.errors import NotFound
from core.gdrive.client import FOLDER, SHORTCUT, DriveClient
from core.gdrive.errors import ChangesTokenExpired, ItemNotImportable
from core.gdrive.export import fetch_content, importable
from core.ingest.service import Upload
from core.sources.base import Listing, RemoteItem
from core.upload_limits import UploadLimits

log = logging.getLogger(__name__)

MAX_DEPTH = 64


def version_of(f: dict) -> str:
    # md5 for stored files; native Google files have none, their modifiedTime moves on edits.
    # Neither changes when a file is only moved or renamed.
    return f.get("md5Checksum") or f"modified:{f.get('modifiedTime', '')}"


def item_of(f: dict) -> RemoteItem:
    owners = f.get("owners") or [{}]
    meta = {"drive_id": f["id"], "drive_name": f.get("name", ""), "drive_mime": f.get("mimeType", ""),
            "web_view_link": f.get("webViewLink", ""), "source_url": f.get("webViewLink", ""),
            "modified_time": f.get("modifiedTime", ""), "drive_version": str(f.get("version", "")),
            "md5": f.get("md5Checksum", ""), "owner": owners[0].get("displayName") or owners[0].get("emailAddress", ""),
            "shared_drive_id": f.get("driveId", ""), "size": int(f["size"]) if f.get("size") else 0}
    return RemoteItem(f["id"], f.get("name", f["id"]), f.get("mimeType", ""), version_of(f),
                      tuple(f.get("parents") or ()), meta)


@dataclass
class DriveSource:
    client: DriveClient
    selection: list[str]  # file and folder ids chosen by the user
    limits: UploadLimits | None = None  # the upload limit (None: none): a larger stored file is not downloaded
    kind: str = "gdrive"
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (name, why left out), last listing

    def listing(self, cursor: str) -> Listing:
        if cursor:
            try:
                return self._changes(cursor)
            except ChangesTokenExpired:
                log.info("Drive change token expired: falling back to a full listing")
        return self._full()

    def fetch(self, item: RemoteItem) -> Upload:
        size = int(item.meta.get("size") or 0)
        refused = self.limits.too_large(item.name, size) if self.limits is not None else None
        if refused is not None:
            raise ItemNotImportable(refused.message)
        name, data = fetch_content(self.client, item.item_id, item.name, item.mime)
        return Upload(name, data)

    # ------------------------------------------------------------ full listing
    def _full(self) -> Listing:
        token = self.client.start_page_token()
        found: dict[str, RemoteItem] = {}
        folders: set[str] = set()
        self.skipped = {}
        for file_id in self.selection:
            try:
                top = self.client.get(file_id)
            except NotFound:
                continue  # the selected file or folder itself is gone: everything of it goes
            self._collect(top, found, folders, depth=0)
        return Listing(items=list(found.values()), full=True, cursor=_write_cursor(token, folders),
                       skipped=dict(self.skipped))

    def _collect(self, f: dict, found: dict[str, RemoteItem], folders: set[str], depth: int) -> None:
        if f.get("trashed") or f["id"] in found or f["id"] in folders or depth > MAX_DEPTH:
            return
        mime = f.get("mimeType", "")
        if mime == FOLDER:
            folders.add(f["id"])
            for child in self.client.children(f["id"], drive_id=f.get("driveId")):
                self._collect(child, found, folders, depth + 1)
        elif mime == SHORTCUT:
            # Only ever points at something: its target is imported when the selection holds it.
            self.skipped[f["id"]] = (f.get("name", ""), "a shortcut: its target is imported only when it is inside the selection")
        elif importable(mime):
            self.skipped[f["id"]] = (f.get("name", ""), importable(mime))
        else:
            found[f["id"]] = item_of(f)

    # ------------------------------------------------------------ changes
    def _changes(self, cursor: str) -> Listing:
        saved = _read_cursor(cursor)
        if saved is None:
            return self._full()
        token, folders = saved
        changes, new_token = self.client.changes(token)
        items: dict[str, RemoteItem] = {}
        removed: list[str] = []
        for change in changes:
            f = change.get("file") or {}
            if change.get("changeType", "file") != "file":
                continue  # a shared drive's own settings changed
            file_id = change.get("fileId") or f.get("id", "")
            if f.get("mimeType") == FOLDER or file_id in folders:
                if file_id in folders or self._inside(f, folders):
                    return self._full()  # a folder of the tree changed: its whole subtree may have moved
                continue
            if change.get("removed") or f.get("trashed"):
                removed.append(file_id)
                continue
            mime = f.get("mimeType", "")
            if mime == SHORTCUT or importable(mime) or not self._inside(f, folders):
                removed.append(file_id)  # moved out of the selection, or never part of it
                continue
            items[file_id] = item_of(f)
        return Listing(items=list(items.values()), full=False, removed=removed,
                       cursor=_write_cursor(new_token, folders), skipped=dict(self.skipped))

    def _inside(self, f: dict, folders: set[str]) -> bool:
        """Selected, or directly in a folder of the tree (the tree's folders are known exactly:
        any change to one of them triggers a full listing)."""
        return f.get("id") in self.selection or any(p in folders for p in f.get("parents") or ())


def _write_cursor(token: str, folders: set[str]) -> str:
    return json.dumps({"token": token, "folders": sorted(folders)})


def _read_cursor(cursor: str) -> tuple[str, set[str]] | None:
    try:
        saved = json.loads(cursor)
        return str(saved["token"]), set(saved["folders"])
    except (ValueError, KeyError, TypeError):
        return None
