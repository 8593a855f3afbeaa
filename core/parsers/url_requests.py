"""A ``requests`` session whose every request (redirect hops included) goes through the SSRF guard.

Some libraries (the YouTube transcript client) speak ``requests``. This adapter sends each of
their requests through httpx with the guarded transport (``url_transport.GuardedTransport``),
so the address is checked and the socket pinned to it exactly as for our own fetches; requests
follows redirects by calling the adapter again, so each hop is checked before it connects.
Bodies are capped at the URL size limit.
"""

from __future__ import annotations

import io

import httpx
import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

from core.errors import FileTooLarge
from core.parsers.url_guard import AllowList
from core.parsers.url_transport import GuardedTransport

_MB = 1024 * 1024


class GuardedRequestsAdapter(BaseAdapter):
    def __init__(self, allow: AllowList, timeout: float, max_bytes: int,
                 transport: httpx.BaseTransport | None = None) -> None:
        super().__init__()
        self._timeout, self._max = timeout, max_bytes
        self._client = httpx.Client(transport=transport or GuardedTransport(allow), follow_redirects=False,
                                    trust_env=False, timeout=httpx.Timeout(timeout))

    def send(self, request: requests.PreparedRequest, stream=False, timeout=None, verify=True, cert=None,
             proxies=None) -> requests.Response:
        try:
            with self._client.stream(request.method or "GET", request.url or "", headers=dict(request.headers),
                                     content=request.body) as reply:
                body = bytearray()
                for piece in reply.iter_bytes():
                    body += piece
                    if len(body) > self._max:
                        raise FileTooLarge(f"{request.url} sends more than the URL limit of {self._max // _MB} MB")
        except httpx.TimeoutException as exc:
            raise requests.Timeout(str(exc), request=request) from exc
        except httpx.HTTPError as exc:
            raise requests.ConnectionError(str(exc), request=request) from exc
        response = requests.Response()
        response.status_code, response.reason = reply.status_code, reply.reason_phrase
        response.headers = CaseInsensitiveDict(reply.headers.multi_items())
        response.encoding = get_encoding_from_headers(response.headers)
        response._content, response._content_consumed = bytes(body), True
        response.raw = io.BytesIO(response._content)
        response.url, response.request = request.url, request
        return response

    def close(self) -> None:
        self._client.close()


def guarded_session(allow: AllowList, timeout: float, max_bytes: int) -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # no proxy from the environment: the guard decides where we connect
    adapter = GuardedRequestsAdapter(allow, timeout, max_bytes)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session
