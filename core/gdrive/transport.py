"""Every request ragdesk makes to Google for Drive goes through the one SSRF guard.

The Drive endpoints are settings (``gdrive.api_base_url``, ``oauth_token_url``, ``revoke_url``:
a proxy or a test server may stand in for Google), so they are checked like any fetch
(``core/parsers/url_guard.py``): resolved once, checked against ``parsing.url_allow_hosts``, and
the socket connects to exactly the checked address. A private or loopback stand-in works once an
admin opened its host; link-local and cloud metadata addresses never.

Google's libraries speak two HTTP stacks, and each gets the guarded transport:
- ``requests`` (google-auth token refresh, the OAuth code exchange, revocation):
  ``guarded_session`` from ``core/parsers/url_requests.py``;
- ``httplib2`` (google-api-python-client, google-auth-httplib2): ``GuardedHttp``, which offers
  httplib2's ``request()`` and sends it through httpx with the guarded transport. Redirects are
  followed (httplib2 did), each hop checked when it connects.
"""

from __future__ import annotations

import httplib2
import httpx
import requests

from core.parsers.url_guard import AllowList
from core.parsers.url_requests import guarded_session
from core.parsers.url_transport import GuardedTransport

TOKEN_REPLY_MAX_BYTES = 1024 * 1024  # an OAuth token or revoke answer is a few hundred bytes
_MAX_REDIRECTS = 5


class GuardedHttp:
    """What google-api-python-client and google-auth-httplib2 use of ``httplib2.Http``."""

    def __init__(self, allow: AllowList, timeout: float) -> None:
        self.timeout = timeout
        self.follow_redirects = True
        self.redirect_codes = frozenset({300, 301, 302, 303, 307})  # not 308: resumable uploads use it
        self.connections: dict = {}  # read by AuthorizedHttp's properties; httpx keeps its own pool
        self._client = httpx.Client(transport=GuardedTransport(allow), follow_redirects=True,
                                    max_redirects=_MAX_REDIRECTS, trust_env=False, timeout=httpx.Timeout(timeout))

    def request(self, uri, method="GET", body=None, headers=None, redirections=_MAX_REDIRECTS,
                connection_type=None, **_ignored):
        if isinstance(body, str):
            body = body.encode("utf-8")
        try:
            reply = self._client.request(method, uri, content=body, headers=dict(headers or {}))
        except httpx.HTTPError as exc:  # what callers expect of httplib2 (retried, then a DriveError)
            raise httplib2.HttpLib2Error(f"{type(exc).__name__}: {exc}") from exc
        info = {key.lower(): value for key, value in reply.headers.items()}
        info["status"] = str(reply.status_code)
        response = httplib2.Response(info)
        response.reason = reply.reason_phrase
        return response, reply.content

    def close(self) -> None:
        self._client.close()


def guarded_requests(allow: AllowList, timeout: float = 30.0) -> requests.Session:
    """A requests session for Google's token and revoke endpoints."""
    return guarded_session(allow, timeout, TOKEN_REPLY_MAX_BYTES)
