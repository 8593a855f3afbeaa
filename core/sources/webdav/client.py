"""A WebDAV folder read as a source: PROPFIND (Depth: 1, one folder at a time) to walk it, GET to
download. Every request goes through the guarded transport (the URL guard, the socket pinned to
the checked address). A file's stamp is its ETag, last-modified time and length; a file whose
stamp changed is downloaded once to hash it (core/sources/tree.py keeps ids across edits and
renames), kept in a private temporary folder for this run, and handed to the ingest from there.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import weakref
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import httpx

from core.errors import CoreError, FetchError, FileTooLarge
from core.ingest.service import Upload
from core.sources.base import Listing, RemoteItem, SourceUnavailable
from core.sources.tree import TreeFile, held_items, supported, tree_listing

DAV = "{DAV:}"
_PROPFIND = (b'<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/>'
             b'<d:getetag/><d:getlastmodified/><d:getcontentlength/><d:getcontenttype/></d:prop></d:propfind>')
_MAX_FOLDERS = 10_000  # a walk this deep is a loop or a mistake
_MB = 1024 * 1024


@dataclass
class WebDavSource:
    parts: Any
    source_id: str
    url: str  # the folder, ending in "/"
    username: str
    password: str
    kind: str = "webdav"
    _spill: dict[str, str] = field(default_factory=dict)  # path -> downloaded copy (this run only)

    def __post_init__(self) -> None:
        settings = self.parts.snapshot().settings.parsing
        from core.parsers.url_guard import AllowList
        from core.parsers.url_transport import GuardedTransport

        self._max_bytes = settings.url_max_mb * _MB
        self._client = httpx.Client(transport=GuardedTransport(AllowList.of(settings)), trust_env=False,
                                    auth=httpx.BasicAuth(self.username, self.password), follow_redirects=False,
                                    timeout=httpx.Timeout(settings.url_timeout_seconds))
        self._dir = tempfile.mkdtemp(prefix="ragdesk-webdav-")  # 0700
        weakref.finalize(self, _cleanup, self._client, self._dir)
        self._root_path = urlsplit(self.url).path

    # -- protocol --------------------------------------------------------------------------
    def _request(self, method: str, url: str, **kw) -> httpx.Response:
        try:
            return self._client.request(method, url, **kw)
        except CoreError as exc:  # the guard refused the address: nothing was sent
            raise SourceUnavailable(exc.message) from None
        except httpx.HTTPError as exc:
            raise SourceUnavailable(f"the WebDAV server cannot be reached: {type(exc).__name__}") from None

    def _refused(self, reply: httpx.Response, what: str) -> SourceUnavailable:
        if reply.status_code == 401:
            return SourceUnavailable(f"the WebDAV server refused the user name or password for {self.username!r} "
                                     "(HTTP 401): add the source again with the right password")
        if reply.status_code == 403:
            return SourceUnavailable(f"the WebDAV server does not let {self.username!r} read {what} (HTTP 403)")
        if reply.status_code == 404:
            return SourceUnavailable(f"the WebDAV folder {what} is not there (HTTP 404); nothing was removed")
        if reply.status_code in (301, 302, 303, 307, 308):
            return SourceUnavailable(f"the WebDAV server redirects {what} to {reply.headers.get('location', '?')}: "
                                     "add the source with that URL")
        return SourceUnavailable(f"the WebDAV server answered HTTP {reply.status_code} for {what}")

    def _propfind(self, folder_url: str) -> list[tuple[str, bool, dict[str, str]]]:
        reply = self._request("PROPFIND", folder_url, content=_PROPFIND,
                              headers={"Depth": "1", "Content-Type": "application/xml; charset=utf-8"})
        if reply.status_code != 207:
            raise self._refused(reply, unquote(urlsplit(folder_url).path))
        try:
            tree = ET.fromstring(reply.content)
        except ET.ParseError as exc:
            raise SourceUnavailable(f"the WebDAV server's folder listing is not XML: {exc}") from None
        out = []
        for resp in tree.iter(f"{DAV}response"):
            href = resp.findtext(f"{DAV}href") or ""
            props: dict[str, str] = {}
            folder = False
            for stat in resp.iter(f"{DAV}propstat"):
                if " 200 " not in f" {stat.findtext(f'{DAV}status') or ''} ":
                    continue
                prop = stat.find(f"{DAV}prop")
                if prop is None:
                    continue
                for child in prop:
                    if child.tag == f"{DAV}resourcetype":
                        folder = folder or child.find(f"{DAV}collection") is not None
                    else:
                        props[child.tag.removeprefix(DAV)] = (child.text or "").strip()
            out.append((urlsplit(urljoin(folder_url, href)).path, folder, props))
        return out

    def listing(self, cursor: str) -> Listing:
        files, skipped = [], {}
        todo, seen = [self._root_path], set()
        while todo:
            folder = todo.pop()
            if folder in seen:
                continue
            seen.add(folder)
            if len(seen) > _MAX_FOLDERS:
                raise SourceUnavailable(f"the WebDAV folder holds more than {_MAX_FOLDERS} folders; sync a smaller one")
            root = unquote(self._root_path)
            for path, is_folder, props in self._propfind(urljoin(self.url, folder)):
                plain = unquote(path)
                if plain.rstrip("/") == unquote(folder).rstrip("/") or not plain.startswith(root):
                    continue  # the folder itself, or an answer about something outside it
                rel = plain[len(root):].strip("/")
                if not rel or any(part.startswith(".") for part in rel.split("/")):
                    continue  # hidden (.git, .DS_Store), as for a folder source
                if is_folder:
                    todo.append(path if path.endswith("/") else path + "/")
                    continue
                why = supported(rel)
                if why:
                    skipped[f"path:{rel}"] = (rel, why)
                    continue
                stamp = "|".join((props.get("getetag", ""), props.get("getlastmodified", ""), props.get("getcontentlength", "")))
                files.append(TreeFile(rel, stamp, props.get("getcontenttype", ""), _iso(props.get("getlastmodified", ""))))
        return tree_listing(files, held_items(self.parts, self.source_id), cursor, self._digest, skipped=skipped)

    def _download(self, rel: str) -> str:
        """The file, saved in this run's private folder; its path there."""
        if rel in self._spill:
            return self._spill[rel]
        url = urljoin(self.url, "/".join(_quote_part(p) for p in rel.split("/")))
        target = os.path.join(self._dir, hashlib.sha256(rel.encode()).hexdigest())
        try:
            with self._client.stream("GET", url) as reply:
                if reply.status_code in (401, 403):
                    raise self._refused(reply, rel)
                if reply.status_code != 200:
                    raise FetchError(f"the WebDAV server answered HTTP {reply.status_code} for {rel}")
                size = 0
                with open(target, "wb") as out:
                    for piece in reply.iter_bytes():
                        size += len(piece)
                        if size > self._max_bytes:
                            raise FileTooLarge(f"{rel} is larger than the URL limit of {self._max_bytes // _MB} MB")
                        out.write(piece)
        except httpx.HTTPError as exc:
            raise FetchError(f"downloading {rel} failed: {type(exc).__name__}") from None
        self._spill[rel] = target
        return target

    def _digest(self, f: TreeFile) -> str:
        sha = hashlib.sha256()
        with open(self._download(f.path), "rb") as fh:
            while piece := fh.read(_MB):
                sha.update(piece)
        return sha.hexdigest()[:32]

    def fetch(self, item: RemoteItem) -> Upload:
        path = self._download(item.name)
        try:
            with open(path, "rb") as fh:
                return Upload(item.name, fh.read())
        finally:
            self._spill.pop(item.name, None)
            os.unlink(path)


def _quote_part(part: str) -> str:
    from urllib.parse import quote

    return quote(part, safe="@:+,;=!$&'()*~")


def _cleanup(client: httpx.Client, folder: str) -> None:
    client.close()
    shutil.rmtree(folder, ignore_errors=True)


def _iso(http_date: str) -> str:
    """A WebDAV getlastmodified (an HTTP date, RFC 1123) as ISO 8601; "" when it is not one."""
    try:
        return parsedate_to_datetime(http_date).isoformat() if http_date else ""
    except (TypeError, ValueError):
        return ""
