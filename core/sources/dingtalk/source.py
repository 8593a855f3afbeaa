"""A DingTalk knowledge base (or one folder of it) read as a source.

Nodes have stable ids (``nodeId``, the dentryUuid), so an item is its node: a renamed or moved
document (still inside the synced folder) keeps its id and is only renamed; one that left it (or
was deleted) is gone from the listing and removed with its vectors. Change detection is the
shared tree logic's stamp-then-hash (core/sources/tree.py), keyed by node id instead of path: the
node's modified time is the cheap stamp kept in the cursor with the export's content hash; an
unchanged stamp reuses the hash without exporting, a changed one exports the document once (kept
in a private temporary folder for this run) and hashes it, so a rename that touches the modified
time but not the text is still only a rename.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import weakref
from dataclasses import dataclass, field
from typing import Any

from core.errors import CoreError
from core.ingest.service import Upload
from core.sources.base import Listing, RemoteItem
from core.sources.dingtalk.api import DingTalkApi

_MAX_FOLDERS = 10_000  # a walk this long is a loop or a mistake
_SUFFIX = {"markdown": ".md", "docx": ".docx"}
_MIME = {"markdown": "text/markdown",
         "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}


def is_folder(node: dict) -> bool:
    return str(node.get("type") or "").upper() == "FOLDER"


def is_document(node: dict) -> bool:
    """A DingTalk document (contentType alidoc, extension adoc): what the export endpoint exports."""
    return str(node.get("category") or "").upper() == "ALIDOC" or str(node.get("extension") or "").lower() == "adoc"


def _stamp(node: dict) -> str:
    return f"{node.get('modifiedTime') or ''}|{node.get('modifiedTimestamp') or ''}"


def _clean(name: str) -> str:
    name = str(name or "untitled").strip().replace("/", "-")
    return name[:-5] if name.lower().endswith(".adoc") else name


@dataclass
class DingTalkSource:
    parts: Any
    source_id: str
    api: DingTalkApi
    workspace_id: str
    root_node_id: str = ""  # a folder of the knowledge base; "" = the whole knowledge base
    export_format: str = "docx"
    export_timeout: float = 120.0
    kind: str = "dingtalk"
    _spill: dict[str, str] = field(default_factory=dict)  # node id -> exported copy (this run only)

    def __post_init__(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="ragdesk-dingtalk-")  # 0700
        weakref.finalize(self, _cleanup, self.api, self._dir)

    def _root(self) -> str:
        if self.root_node_id:
            return self.root_node_id
        space = self.api.workspace(self.workspace_id)
        root = str(space.get("rootNodeId") or "")
        if not root:
            raise CoreError(f"DingTalk gave no root node for the knowledge base {self.workspace_id}")
        return root

    def _walk(self) -> tuple[list[tuple[dict, str]], dict[str, tuple[str, str]]]:
        """Every document under the root with its path; what was left out and why."""
        docs, skipped = [], {}
        todo, seen = [(self._root(), "")], set()
        while todo:
            parent, prefix = todo.pop()
            if parent in seen:
                continue
            seen.add(parent)
            if len(seen) > _MAX_FOLDERS:
                raise CoreError(f"the knowledge base holds more than {_MAX_FOLDERS} folders; sync one folder of it")
            for node in self.api.children(parent):
                node_id, name = str(node.get("nodeId") or ""), _clean(node.get("name"))
                if not node_id:
                    continue
                path = f"{prefix}{name}"
                if is_folder(node) or node.get("hasChildren"):
                    todo.append((node_id, path + "/"))  # a document may hold sub-documents too
                if is_folder(node):
                    continue
                if is_document(node):
                    docs.append((node, path + _SUFFIX[self.export_format]))
                else:
                    skipped[node_id] = (path, "an uploaded file, not a DingTalk document (only documents are exported)")
        return sorted(docs, key=lambda d: d[1]), skipped

    def listing(self, cursor: str) -> Listing:
        docs, skipped = self._walk()
        stamps = _read_stamps(cursor)
        items, errors, new_stamps = [], {}, {}
        for node, path in docs:
            node_id, stamp = str(node["nodeId"]), _stamp(node)
            cached = stamps.get(node_id)
            if cached and cached[0] == stamp:
                digest = cached[1]
            else:
                try:
                    digest = self._digest(node_id)
                except CoreError as exc:  # this document alone: left as it is, retried next sync
                    errors[node_id] = f"{path}: {exc.message}"  # named: a new document has no held name yet
                    continue
            new_stamps[node_id] = [stamp, digest]
            items.append(RemoteItem(node_id, path, _MIME[self.export_format], digest,
                                    meta={"path": path, "link": str(node.get("url") or ""),
                                          "modified_time": str(node.get("modifiedTime") or "")}))
        return Listing(items=items, full=True, errors=errors, skipped=skipped,
                       cursor=json.dumps({"stamps": new_stamps}, separators=(",", ":")))

    def _export(self, node_id: str) -> str:
        """The document exported into this run's private folder; its path there."""
        if node_id in self._spill:
            return self._spill[node_id]
        data = self.api.export(node_id, self.export_format, timeout=self.export_timeout)
        target = os.path.join(self._dir, hashlib.sha256(node_id.encode()).hexdigest())
        with open(target, "wb") as out:
            out.write(data)
        self._spill[node_id] = target
        return target

    def _digest(self, node_id: str) -> str:
        with open(self._export(node_id), "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()[:32]

    def fetch(self, item: RemoteItem) -> Upload:
        path = self._export(item.item_id)
        try:
            with open(path, "rb") as fh:
                return Upload(item.name, fh.read())
        finally:
            self._spill.pop(item.item_id, None)
            os.unlink(path)


def _cleanup(api: DingTalkApi, folder: str) -> None:
    api.close()
    shutil.rmtree(folder, ignore_errors=True)


def _read_stamps(cursor: str) -> dict[str, list[str]]:
    try:
        data = json.loads(cursor) if cursor else {}
    except ValueError:
        return {}
    return data.get("stamps", {}) if isinstance(data, dict) else {}
