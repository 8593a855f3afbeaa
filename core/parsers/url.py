"""Fetch a URL and parse what it serves.

Safety: http/https only; every hop (the first request and each redirect, at most 5,
followed by hand) is checked against the SSRF guard, and the default transport connects
only to the addresses it checked (no DNS-rebinding window); per-phase timeouts plus a
wall-clock limit; the body is capped while streaming. YouTube video URLs are answered with
their transcript instead of the page.
"""

from __future__ import annotations

import time
from email.message import Message
from pathlib import PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

import httpx
import requests

from core.errors import FetchError, FileTooLarge
from core.parsers.base import ParseContext
from core.parsers.html import parse_html
from core.parsers.url_guard import AllowList, check_url
from core.parsers.url_transport import GuardedTransport
from core.parsers.youtube import fetch_transcript, youtube_video_id
from core.types import ParsedDoc

MAX_REDIRECTS = 5
_MB = 1024 * 1024
_HTML_TYPES = {"text/html", "application/xhtml+xml"}
_UNTYPED = {"", "application/octet-stream", "binary/octet-stream", "application/download"}
# A file name the registry's detector understands, for content types whose bytes look alike.
_EXTENSIONS = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/plain": ".txt",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/bmp": ".bmp",
    "image/tiff": ".tiff",
}


class HttpStatusError(FetchError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, *, status: int, detail: str | None = None):
        super().__init__(message, detail=detail)
        self.status = status


def _content_type(header: str | None) -> tuple[str, dict[str, str]]:
    message = Message()
    message["content-type"] = header or ""
    params = {k.lower(): v for k, v in message.get_params(failobj=[])[1:]}
    return (message.get_content_type() if header else ""), params


def _looks_like_html(data: bytes) -> bool:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def _name_for(url: str, mime: str) -> str:
    """A file name for the registry: the URL's own if it has an extension, else one from the type."""
    name = PurePosixPath(unquote(urlsplit(url).path)).name
    if mime in _EXTENSIONS and not name.lower().endswith(_EXTENSIONS[mime]):
        return (name or "download") + _EXTENSIONS[mime]
    return name or "download"


def _read_capped(response: httpx.Response, limit: int, deadline: float, url: str) -> bytes:
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise FileTooLarge(f"{url} is {int(declared) / _MB:.1f} MB, more than the URL limit of {limit // _MB} MB")
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise FileTooLarge(f"{url} sends more than the URL limit of {limit // _MB} MB")
        if time.monotonic() > deadline:
            raise FetchError(f"fetching {url} took too long")
        chunks.append(chunk)
    return b"".join(chunks)


def _download(url: str, ctx: ParseContext, transport: httpx.BaseTransport | None) -> tuple[str, bytes, str]:
    """(final URL, body, content-type header) after following checked redirects."""
    settings = ctx.settings
    timeout = settings.url_timeout_seconds
    deadline = time.monotonic() + 3 * timeout  # per-phase timeouts alone allow a slow drip forever
    limit = settings.url_max_mb * _MB
    allow = AllowList.of(settings)
    own_transport = transport or GuardedTransport(allow)
    headers = {"User-Agent": "ragdesk/0.1 (knowledge-base ingestion)", "Accept": "*/*"}
    with httpx.Client(transport=own_transport, timeout=httpx.Timeout(timeout), follow_redirects=False,
                      trust_env=False, headers=headers) as client:
        current = url
        for hop in range(MAX_REDIRECTS + 1):
            # re-checked on every hop; the guarded transport checks again at connect time
            check_url(current, allow)
            try:
                with client.stream("GET", current) as response:
                    if response.is_redirect and "location" in response.headers:
                        current = urljoin(current, response.headers["location"])
                        continue
                    if response.status_code >= 400:
                        raise HttpStatusError(
                            f"{current} answered HTTP {response.status_code} {response.reason_phrase}".rstrip(),
                            status=response.status_code,
                        )
                    body = _read_capped(response, limit, deadline, current)
                    return current, body, response.headers.get("content-type", "")
            except httpx.TimeoutException as exc:
                raise FetchError(f"timed out fetching {current} (limit {timeout:g} s)") from exc
            except httpx.HTTPError as exc:
                raise FetchError(f"could not fetch {current}: {type(exc).__name__}", detail=str(exc)) from exc
    raise FetchError(f"{url} redirects more than {MAX_REDIRECTS} times")


def fetch_url(
    url: str,
    ctx: ParseContext,
    *,
    transport: httpx.BaseTransport | None = None,
    youtube_client: requests.Session | None = None,
) -> ParsedDoc:
    """Fetch ``url`` and parse it by its content type (HTML here, everything else through the
    parser registry); YouTube video URLs give their transcript (``youtube_client`` is the
    requests session the transcript library uses; a default one when None)."""
    url = url.strip()
    if youtube_video_id(url) is not None:
        return fetch_transcript(url, ctx, http_client=youtube_client)
    final_url, body, header = _download(url, ctx, transport)
    mime, params = _content_type(header)
    if mime in _HTML_TYPES or (mime in _UNTYPED and _looks_like_html(body)):
        doc = parse_html(body, url, ctx, declared_charset=params.get("charset"))
        doc.metadata.update(kind="html", parser="html")
    else:
        from core.parsers.registry import parse_bytes  # lazy: the registry imports every parser

        doc = parse_bytes(body, _name_for(final_url, mime), ctx)
        doc.source_name = url
    doc.metadata.setdefault("url", url)
    if final_url != url:
        doc.metadata["final_url"] = final_url
    doc.metadata["content_type"] = mime or "unknown"
    return doc
