"""A Drive v3 client (google-api-python-client, static discovery, endpoint from the settings),
speaking through the SSRF guard (``core/gdrive/transport.py``).

Every list call follows ``nextPageToken`` to the end (Drive may return short pages). Rate limits
(403 rateLimitExceeded / userRateLimitExceeded, 429) and 5xx are retried with exponential
backoff that honours ``Retry-After``, a bounded number of times. Google refusing the token
becomes ``ReconnectNeeded``; a refreshed access token is handed to ``on_token`` to be stored.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Callable, Iterator

import google_auth_httplib2
import httplib2
from google.auth.exceptions import RefreshError, TransportError
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

from core.errors import NotFound
from core.gdrive.errors import ChangesTokenExpired, DriveError, ItemNotImportable, ReconnectNeeded
from core.gdrive.transport import GuardedHttp
from core.parsers.url_guard import AllowList

log = logging.getLogger(__name__)

FOLDER = "application/vnd.google-apps.folder"
SHORTCUT = "application/vnd.google-apps.shortcut"
FILE_FIELDS = ("id,name,mimeType,parents,trashed,modifiedTime,version,md5Checksum,size,webViewLink,"
               "owners(displayName,emailAddress),driveId,shortcutDetails(targetId,targetMimeType)")
_RATE_REASONS = {"rateLimitExceeded", "userRateLimitExceeded"}


@dataclass(frozen=True)
class Backoff:
    retries: int = 5
    first_seconds: float = 1.0
    max_seconds: float = 60.0  # no single wait (even a Retry-After) is longer


class DriveClient:
    def __init__(self, creds: Credentials, api_base_url: str, *, allow: AllowList = AllowList(),
                 on_token: Callable[[Credentials], None] | None = None,
                 backoff: Backoff = Backoff(), sleep: Callable[[float], None] = time.sleep, page_size: int = 100,
                 timeout: float = 60.0):
        """``allow``: what an admin opened to the SSRF guard (every call and token refresh goes through it)."""
        self.creds = creds
        self._token = creds.token
        self._on_token = on_token
        self._backoff, self._sleep, self.page_size = backoff, sleep, page_size
        http = google_auth_httplib2.AuthorizedHttp(creds, http=GuardedHttp(allow, timeout))
        self.service = build("drive", "v3", http=http, static_discovery=True, cache_discovery=False,
                             client_options={"api_endpoint": api_base_url.rstrip("/") + "/drive/v3/"})

    # ------------------------------------------------------------ calls
    def _run(self, request, what: str):
        attempt = 0
        while True:
            try:
                result = request.execute(num_retries=0)
                break
            except HttpError as exc:
                status, reason, message = _error_of(exc)
                retryable = status == 429 or status >= 500 or (status == 403 and reason in _RATE_REASONS)
                if retryable and attempt < self._backoff.retries:
                    self._sleep(self._wait(exc, attempt))
                    attempt += 1
                    continue
                raise _translate(status, reason, message, what) from None
            except RefreshError:
                raise ReconnectNeeded("Google refused the stored Drive tokens (revoked or expired): reconnect Google Drive") from None
            except (TransportError, httplib2.HttpLib2Error, OSError) as exc:
                if attempt < min(2, self._backoff.retries):  # a network blip, not a rate limit: retry briefly
                    self._sleep(self._backoff.first_seconds * 2 ** attempt)
                    attempt += 1
                    continue
                raise DriveError(f"cannot reach Google Drive while {what} ({type(exc).__name__})") from None
        if self.creds.token != self._token:  # refreshed on the way: store the new access token
            self._token = self.creds.token
            if self._on_token is not None:
                self._on_token(self.creds)
        return result

    def _wait(self, exc: HttpError, attempt: int) -> float:
        header = exc.resp.get("retry-after") if exc.resp is not None else None
        try:
            wanted = float(header) if header is not None else None
        except ValueError:
            wanted = None  # an HTTP date; fall back to the exponential wait
        wait = wanted if wanted is not None else self._backoff.first_seconds * 2 ** attempt
        return max(0.0, min(self._backoff.max_seconds, wait))

    def _pages(self, method: Callable, what: str, items_key: str, **params) -> Iterator[dict]:
        token = None
        while True:
            page = self._run(method(**params, **({"pageToken": token} if token else {})), what)
            yield from page.get(items_key, [])
            token = page.get("nextPageToken")
            if not token:
                return

    # ------------------------------------------------------------ metadata
    def about(self) -> dict:
        return self._run(self.service.about().get(fields="user(displayName,emailAddress)"), "reading the account")

    def list_files(self, q: str, *, drive_id: str | None = None) -> list[dict]:
        params = dict(q=q, fields=f"nextPageToken,files({FILE_FIELDS})", pageSize=self.page_size,
                      supportsAllDrives=True, includeItemsFromAllDrives=True, orderBy="folder,name")
        if drive_id:
            params.update(corpora="drive", driveId=drive_id)
        return list(self._pages(self.service.files().list, "listing files", "files", **params))

    def children(self, folder_id: str, *, drive_id: str | None = None) -> list[dict]:
        return self.list_files(f"'{_quote(folder_id)}' in parents and trashed = false", drive_id=drive_id)

    def shared_with_me(self) -> list[dict]:
        return self.list_files("sharedWithMe = true and trashed = false")

    def search(self, text: str) -> list[dict]:
        return self.list_files(f"name contains '{_quote(text)}' and trashed = false")

    def shared_drives(self) -> list[dict]:
        return list(self._pages(self.service.drives().list, "listing shared drives", "drives",
                                fields="nextPageToken,drives(id,name)", pageSize=min(self.page_size, 100)))

    def get(self, file_id: str, fields: str = FILE_FIELDS) -> dict:
        return self._run(self.service.files().get(fileId=file_id, fields=fields, supportsAllDrives=True),
                         f"reading file {file_id}")

    # ------------------------------------------------------------ content
    def download(self, file_id: str) -> bytes:
        return self._run(self.service.files().get_media(fileId=file_id, supportsAllDrives=True), "downloading a file")

    def export(self, file_id: str, mime: str) -> bytes:
        return self._run(self.service.files().export(fileId=file_id, mimeType=mime), "exporting a file")

    # ------------------------------------------------------------ changes
    def start_page_token(self) -> str:
        answer = self._run(self.service.changes().getStartPageToken(supportsAllDrives=True), "starting the change log")
        return answer["startPageToken"]

    def changes(self, token: str) -> tuple[list[dict], str]:
        """Every change since ``token`` and the token to use next time. 410 → ChangesTokenExpired."""
        out, page_token = [], token
        fields = f"nextPageToken,newStartPageToken,changes(fileId,removed,changeType,file({FILE_FIELDS}))"
        while True:
            page = self._run(self.service.changes().list(
                pageToken=page_token, fields=fields, pageSize=self.page_size, includeRemoved=True,
                supportsAllDrives=True, includeItemsFromAllDrives=True, spaces="drive"), "reading changes")
            out.extend(page.get("changes", []))
            if page.get("nextPageToken"):
                page_token = page["nextPageToken"]
            else:
                return out, page.get("newStartPageToken", page_token)


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")


def _error_of(exc: HttpError) -> tuple[int, str, str]:
    status = int(exc.resp.status) if exc.resp is not None else 0
    reason, message = "", ""
    try:
        err = json.loads(exc.content.decode("utf-8", "replace")).get("error", {})
        message = str(err.get("message", ""))
        errors = err.get("errors") or [{}]
        reason = str(errors[0].get("reason", "") or err.get("status", ""))
    except (ValueError, AttributeError):
        pass
    return status, reason, message


def _translate(status: int, reason: str, message: str, what: str) -> Exception:
    if status == 401:
        return ReconnectNeeded("Google refused the Drive access token: reconnect Google Drive")
    if status == 410:
        return ChangesTokenExpired("the saved Drive change token expired")
    if status == 404:
        return NotFound(f"not found in Google Drive (or not shared with you) while {what}")
    if reason == "exportSizeLimitExceeded":
        return ItemNotImportable("too large for Google's export (Google exports at most 10 MB of a Google file)")
    if reason in ("fileNotDownloadable", "cannotExportFile"):
        return ItemNotImportable(f"Google Drive does not allow downloading or exporting this file ({reason})")
    if status == 403 and reason in _RATE_REASONS | {"dailyLimitExceeded"}:
        return DriveError("Google Drive rate limit still exceeded after retrying; try again later")
    detail = f": {message}" if message else ""
    return DriveError(f"Google Drive answered HTTP {status} ({reason or 'error'}) while {what}{detail}")
