"""HTTP plumbing shared by the embedding API clients.

Every failure becomes an EmbeddingError whose message names the host and what happened and
never contains the API key (servers sometimes echo it back, so response text is scrubbed).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import numpy as np

from core.errors import EmbeddingError
from core.embeddings.errors import EmbeddingAuthError, EmbeddingRejected
from core.parsers.url_transport import service_client

_SNIPPET = 200  # characters of a server's error text worth showing


def host_of(base_url: str) -> str:
    """host[:port] only: a URL may carry credentials or tokens in its userinfo or query."""
    url = httpx.URL(base_url)
    return f"{url.host}:{url.port}" if url.port else url.host


def make_client(base_url: str, api_key: str, timeout: float) -> httpx.Client:
    if not base_url:
        raise EmbeddingRejected("Embedding API base URL is empty: set it in the embedding settings.")
    try:
        url = httpx.URL(base_url)
    except httpx.InvalidURL as exc:
        raise EmbeddingRejected(f"Embedding API base URL is not a valid URL ({exc.__class__.__name__}).") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise EmbeddingRejected("Embedding API base URL must start with http:// or https:// and name a host.")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    # connect quickly, but let a busy model server take its time on a batch
    # through the URL guard: private and loopback servers are fine, link-local/metadata never
    return service_client(base_url=base_url.rstrip("/") + "/", headers=headers,
                          timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)))


def scrub(text: str, secret: str) -> str:
    return text.replace(secret, "***") if secret else text


def post_json(client: httpx.Client, path: str, payload: dict[str, Any], *, api_key: str) -> Any:
    """POST and return the decoded JSON body, or raise an EmbeddingError (subclass)."""
    host = host_of(str(client.base_url))
    try:
        response = client.post(path, json=payload)
    except httpx.ConnectTimeout:
        raise EmbeddingError(
            f"Embedding API at {host} did not accept a connection within {client.timeout.connect:g} s; is the host up?"
        ) from None
    except httpx.TimeoutException:
        raise EmbeddingError(
            f"Embedding API at {host} timed out after {client.timeout.read:g} s; try again or raise the timeout."
        ) from None
    except httpx.ConnectError as exc:
        raise EmbeddingError(f"Embedding API at {host} is unreachable ({_connect_reason(exc)}); is the server running?") from None
    except httpx.TransportError as exc:
        raise EmbeddingError(
            f"Embedding API at {host} failed mid-request ({exc.__class__.__name__}); try again."
        ) from None

    status = response.status_code
    body = scrub(response.text[:2000], api_key)
    if status in (401, 403):
        raise EmbeddingAuthError(
            f"API key rejected by the embedding API at {host} (HTTP {status}); check the key in the embedding settings.",
            detail=body,
        )
    if status >= 500 or status == 429:
        # a 429 is a rate limit or a spent quota (OpenAI's insufficient_quota): the server's words tell which
        reason = _server_reason(response, api_key)
        raise EmbeddingError(f"Embedding API at {host} answered HTTP {status}{': ' + reason if reason else ''}; "
                             "try again later.", detail=body)
    if status >= 400:
        reason = _server_reason(response, api_key)
        raise EmbeddingRejected(
            f"Embedding API at {host} refused the request (HTTP {status}){': ' + reason if reason else ''}.",
            detail=body,
        )
    if status != 200:
        raise EmbeddingRejected(f"Embedding API at {host} answered unexpected HTTP {status}.", detail=body)
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise EmbeddingRejected(
            f"Embedding API at {host} returned a body that is not JSON; is the base URL right?",
            detail=body,
        ) from None


def _connect_reason(exc: httpx.ConnectError) -> str:
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    if "name or service not known" in text or "name resolution" in text or "nodename" in text:
        return "host name not found"
    return "cannot connect"


def _server_reason(response: httpx.Response, api_key: str) -> str:
    """The short error text OpenAI-style ({"error": {"message"}}) or Ollama-style ({"error"}) servers send."""
    try:
        data = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return ""
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        err = err.get("message")
    return scrub(str(err), api_key)[:_SNIPPET] if err else ""


def to_unit_rows(rows: list[Any], *, expected: int, host: str) -> np.ndarray:
    """Validate a list of vectors from an API and L2-normalise them (servers do not all normalise)."""
    bad = EmbeddingRejected
    if not isinstance(rows, list) or len(rows) != expected:
        got = len(rows) if isinstance(rows, list) else type(rows).__name__
        raise bad(f"Embedding API at {host} returned {got} vectors for {expected} texts.")
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (ValueError, TypeError):
        raise bad(f"Embedding API at {host} returned vectors that are not lists of numbers.") from None
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise bad(f"Embedding API at {host} returned vectors of uneven or zero length.")
    if not np.isfinite(matrix).all():
        raise bad(f"Embedding API at {host} returned vectors containing NaN or infinity.")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if (norms == 0).any():
        raise bad(f"Embedding API at {host} returned an all-zero vector.")
    return matrix / norms
