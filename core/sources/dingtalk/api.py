"""DingTalk's open API, the parts a knowledge-base source needs (see docs/sources.md for where each
path, parameter and field comes from): the app's access token, the knowledge bases (wiki
workspaces), their nodes, and the export of a DingTalk document to a file.

Every request goes through the guarded transport (the URL guard: the base URL and every download
URL are checked, the socket pinned to the checked address). The access token is cached per app
until shortly before it expires, and fetched again once when DingTalk says it is no longer valid.
Rate limits (HTTP 429, ``…QpsLimit…``/``Throttling`` codes) and 5xx are retried with an
exponential backoff that honours ``Retry-After``, a bounded number of times.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx

from core.errors import CoreError, FetchError, FileTooLarge
from core.sources.base import SourceUnavailable

_TOKEN_MARGIN = 300.0  # seconds: a token this close to its end is not used (DingTalk's own advice: cache < 7200 s)
_MB = 1024 * 1024


class DingTalkError(SourceUnavailable):
    """DingTalk refused or failed a call the whole sync needs (credentials, a knowledge base)."""


@dataclass(frozen=True)
class Backoff:
    retries: int = 5
    first_seconds: float = 1.0
    max_seconds: float = 60.0  # no single wait (even a Retry-After) is longer


# (base URL, app key, digest of the secret) -> (token, monotonic expiry). Process-wide: every sync
# of the same app shares one token, as DingTalk asks (the token endpoint is rate limited too).
_TOKENS: dict[tuple[str, str, str], tuple[str, float]] = {}
_TOKENS_LOCK = threading.Lock()


# What DingTalk says of a token it no longer takes, whatever the HTTP status (400, 401 or 403): the
# v1.0/v2.0 APIs' ``code`` InvalidAuthentication, the older APIs' ``errcode`` 40001 ("access_token is
# invalid or not latest"), 40014 (an illegal token) and 42001 (an expired one).
_TOKEN_REJECTED = frozenset({"invalidauthentication", "40001", "40014", "42001"})


def _token_rejected(reply: httpx.Response) -> bool:
    return reply.status_code == 401 or _code_of(reply).lower() in _TOKEN_REJECTED


def _rate_limited(status: int, code: str) -> bool:
    return status == 429 or "qpslimit" in code.lower() or code.lower().startswith("throttling")


class DingTalkApi:
    def __init__(self, client: httpx.Client, base_url: str, app_key: str, app_secret: str, operator_id: str, *,
                 backoff: Backoff = Backoff(), sleep: Callable[[float], None] = time.sleep,
                 page_size: int = 30, max_bytes: int = 50 * _MB):
        self._client, self.base = client, base_url.rstrip("/")
        self.app_key, self._secret, self.operator_id = app_key, app_secret, operator_id
        self._backoff, self._sleep, self.page_size, self._max_bytes = backoff, sleep, page_size, max_bytes
        self._cache_key = (self.base, app_key, hashlib.sha256(app_secret.encode()).hexdigest())
        self.calls: dict[str, int] = {}

    def close(self) -> None:
        self._client.close()

    # ------------------------------------------------------------------ transport
    def _send(self, method: str, url: str, **kw) -> httpx.Response:
        """One request, retried on rate limits and 5xx. Raises DingTalkError when unreachable."""
        attempt = 0
        while True:
            try:
                reply = self._client.request(method, url, **kw)
            except CoreError as exc:  # the guard refused the address: nothing was sent
                raise DingTalkError(exc.message) from None
            except httpx.HTTPError as exc:
                if attempt < min(2, self._backoff.retries):  # a network blip, not a rate limit: retry briefly
                    self._sleep(self._backoff.first_seconds * 2 ** attempt)
                    attempt += 1
                    continue
                raise DingTalkError(f"DingTalk cannot be reached: {type(exc).__name__}") from None
            code = _code_of(reply)
            if (_rate_limited(reply.status_code, code) or reply.status_code >= 500) and attempt < self._backoff.retries:
                self._sleep(self._wait(reply, attempt))
                attempt += 1
                continue
            return reply

    def _wait(self, reply: httpx.Response, attempt: int) -> float:
        try:
            wanted = float(reply.headers.get("retry-after", ""))
        except ValueError:
            wanted = None  # absent, or an HTTP date: the exponential wait
        wait = wanted if wanted is not None else self._backoff.first_seconds * 2 ** attempt
        return max(0.0, min(self._backoff.max_seconds, wait))

    # ------------------------------------------------------------------ token
    def token(self, *, fresh: bool = False) -> str:
        with _TOKENS_LOCK:
            held = _TOKENS.get(self._cache_key)
            if held and not fresh and held[1] > time.monotonic():
                return held[0]
        reply = self._send("POST", f"{self.base}/v1.0/oauth2/accessToken",
                           json={"appKey": self.app_key, "appSecret": self._secret})
        self._count("token")
        if reply.status_code != 200:
            code = _code_of(reply)
            if reply.status_code in (400, 401, 403) and not _rate_limited(reply.status_code, code):
                raise DingTalkError(f"DingTalk refused the app credentials (AppKey {self.app_key!r} with its AppSecret; "
                                    f"HTTP {reply.status_code}{', ' + code if code else ''}): add the source again "
                                    "with the right AppSecret")
            raise self._failed(reply, "getting an access token")
        body = _json(reply)
        token, expires = str(body.get("accessToken") or ""), body.get("expireIn")
        if not token:
            raise DingTalkError("DingTalk's token reply carries no accessToken")
        try:
            lifetime = float(expires)
        except (TypeError, ValueError):
            lifetime = 7200.0  # DingTalk's documented lifetime
        # a short-lived token (a test's) is still used, just never past the middle of its life
        margin = min(_TOKEN_MARGIN, lifetime / 2)
        with _TOKENS_LOCK:
            _TOKENS[self._cache_key] = (token, time.monotonic() + lifetime - margin)
        return token

    def _call(self, method: str, path: str, what: str, **kw) -> dict:
        """An authenticated JSON call; a token DingTalk no longer accepts is replaced once."""
        for fresh in (False, True):
            headers = {"x-acs-dingtalk-access-token": self.token(fresh=fresh)}
            reply = self._send(method, f"{self.base}{path}", headers=headers, **kw)
            self._count(path.split("?")[0])
            if _token_rejected(reply) and not fresh:
                continue  # expired or revoked before our clock said so: a new token, one more try
            if reply.status_code != 200:
                raise self._failed(reply, what)
            return _json(reply)
        raise self._failed(reply, what)

    def _count(self, what: str) -> None:
        self.calls[what] = self.calls.get(what, 0) + 1

    def _failed(self, reply: httpx.Response, what: str) -> DingTalkError:
        code, message = _code_of(reply), _message_of(reply)
        said = f" ({code}: {message})" if code or message else ""
        if _rate_limited(reply.status_code, code):
            return DingTalkError(f"DingTalk's rate limit was still exceeded after retrying while {what}{said}; "
                                 "the next sync tries again")
        if _token_rejected(reply):
            return DingTalkError(f"DingTalk did not accept the app's access token while {what}{said}")
        if reply.status_code == 403:
            return DingTalkError(f"DingTalk does not let the app (or operator {self.operator_id!r}) do this while "
                                 f"{what}{said}: grant the app the knowledge-base read permissions")
        if reply.status_code == 404:
            return DingTalkError(f"DingTalk found nothing while {what} (HTTP 404){said}; nothing was removed")
        return DingTalkError(f"DingTalk answered HTTP {reply.status_code} while {what}{said}")

    # ------------------------------------------------------------------ knowledge bases
    def _pages(self, path: str, items_key: str, what: str, params: dict) -> Iterator[dict]:
        token = ""
        while True:
            query = {**params, "operatorId": self.operator_id, "maxResults": self.page_size}
            if token:
                query["nextToken"] = token
            page = self._call("GET", path, what, params=query)
            yield from page.get(items_key) or []
            token = str(page.get("nextToken") or "")
            if not token:
                return

    def workspaces(self) -> list[dict]:
        """The knowledge bases the operator may read (``GET /v2.0/wiki/workspaces``)."""
        size, self.page_size = self.page_size, min(self.page_size, 30)  # that endpoint's maximum
        try:
            return list(self._pages("/v2.0/wiki/workspaces", "workspaces", "listing knowledge bases", {}))
        finally:
            self.page_size = size

    def workspace(self, workspace_id: str) -> dict:
        body = self._call("GET", f"/v2.0/wiki/workspaces/{_part(workspace_id)}", "reading the knowledge base",
                          params={"operatorId": self.operator_id})
        return body.get("workspace") or body

    def children(self, parent_node_id: str) -> list[dict]:
        """One node's children (``GET /v2.0/wiki/nodes?parentNodeId=``), every page."""
        return list(self._pages("/v2.0/wiki/nodes", "nodes", "listing a knowledge base's documents",
                                {"parentNodeId": parent_node_id}))

    # ------------------------------------------------------------------ export
    def export(self, node_id: str, target_format: str, *, timeout: float = 120.0, poll: float = 1.0) -> bytes:
        """A DingTalk document exported to ``target_format`` (docx, the documented one; markdown): submit the export
        job, wait for its download URL, download it (capped). Raises CoreError for this document."""
        body = {"dentryUuid": node_id, "operatorId": self.operator_id, "targetFormat": target_format}
        try:
            job = self._call("POST", "/v2.0/doc/me/export/submit", "exporting a document", json=body)
            url, task = str(job.get("downloadUrl") or ""), str(job.get("taskId") or "")
            deadline = time.monotonic() + timeout
            while not url:
                if not task:
                    raise CoreError("DingTalk started no export job for the document")
                state = self._call("GET", "/v2.0/doc/me/export/task/query", "waiting for a document's export",
                                   params={"taskId": task, "operatorId": self.operator_id})
                url, status = str(state.get("downloadUrl") or ""), str(state.get("status") or "").lower()
                if not url and "fail" in status:
                    raise CoreError(f"DingTalk could not export the document (status {state.get('status')})")
                if not url:
                    if time.monotonic() > deadline:
                        raise CoreError(f"DingTalk's export of the document took longer than {timeout:.0f} s")
                    self._sleep(poll)
        except DingTalkError as exc:  # one document that cannot be exported fails alone
            raise CoreError(exc.message) from None
        return self._download(url)

    def _download(self, url: str) -> bytes:
        # a pre-signed URL: no token is sent with it (it may point at another host)
        try:
            with self._client.stream("GET", url) as reply:
                if reply.status_code != 200:
                    raise FetchError(f"downloading the exported document failed (HTTP {reply.status_code})")
                out, size = [], 0
                for piece in reply.iter_bytes():
                    size += len(piece)
                    if size > self._max_bytes:
                        raise FileTooLarge(f"the exported document is larger than {self._max_bytes // _MB} MB")
                    out.append(piece)
                return b"".join(out)
        except httpx.HTTPError as exc:
            raise FetchError(f"downloading the exported document failed: {type(exc).__name__}") from None


def forget_tokens() -> None:
    """Drop every cached access token (a test, or an app whose secret was replaced)."""
    with _TOKENS_LOCK:
        _TOKENS.clear()


def _json(reply: httpx.Response) -> dict:
    try:
        body = reply.json()
    except ValueError:
        raise DingTalkError(f"DingTalk's reply is not JSON (HTTP {reply.status_code})") from None
    return body if isinstance(body, dict) else {}


def _code_of(reply: httpx.Response) -> str:
    try:
        body = reply.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    legacy = body.get("errcode")  # the older APIs: {"errcode": 40001, "errmsg": ...}; 0 is success
    return str(body.get("code") or (legacy if legacy not in (None, 0, "0") else "") or "")


def _message_of(reply: httpx.Response) -> str:
    try:
        body = reply.json()
    except ValueError:
        return ""
    return str(body.get("message") or body.get("errmsg") or "")[:300] if isinstance(body, dict) else ""


def _part(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")
