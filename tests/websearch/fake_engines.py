"""One local HTTP server on 127.0.0.1 speaking every search engine's API and serving result pages.

Routes (each engine checks its credential, limits and parameters the way its public docs say, and
answers errors with the status and body they document):
- ``GET  /search?q=&format=json``             SearXNG      → {"results": [{"url", "title", "content"}],
  "unresponsive_engines"}; a format other than json: 403 (an HTML page)
- ``POST /tavily/search``  Bearer key          Tavily       → {"results": [{"url", "title", "content"}]};
  max_results at most 20, query at most 400 characters; errors {"detail": {"error"}} (401, 400)
- ``GET  /brave/res/v1/web/search?q=&count=&offset=``  X-Subscription-Token → {"web": {"results":
  [{"url", "title", "description"}]}, "query": {"more_results_available"}}; descriptions highlight
  the query's words with <strong> and escape the rest; count ≤ 20, offset ≤ 9, q ≤ 400 characters
  and 50 words; errors {"type": "ErrorResponse", "error": {"code", "detail", "status"}} (a wrong
  token is 422 SUBSCRIPTION_TOKEN_INVALID, as Brave answers)
- ``GET  /google/customsearch/v1?key=&cx=&q=&num=&start=`` Google PSE → {"items": [{"link", "title", "snippet"}]}
  ("items" absent when there are none); num ≤ 10, start + num ≤ 100; errors {"error": {"code", "message"}}
- ``POST /serper/search``  X-API-KEY           Serper       → {"organic": [{"link", "title", "snippet"}]};
  errors {"message", "statusCode"}
- ``POST /external``       Bearer key          external     → [{"link", "title", "snippet"}]
- anything under ``/pages/``: pages set with ``page()`` (status, type, body, delay).

``rate_limited``: scripted 429 answers (each a dict of response headers) sent before the next engine
answers, in the engine's error shape.

Results per query are set with ``results(query, [(link, title, snippet), ...])``; every request is
recorded, so tests count engine calls and page loads.
"""

from __future__ import annotations

import html
import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

KEY = "test-key-123"
CX = "engine-cx-1"


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class Page:
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    delay: float = 0.0


@dataclass
class FakeEngines:
    by_query: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    pages: dict[str, Page] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    engine_status: int = 200  # e.g. 500: every engine route fails
    engine_delay: float = 0.0  # seconds before every engine answer
    failing_queries: set[str] = field(default_factory=set)  # SearXNG answers 500 for these
    rate_limited: list[dict[str, str]] = field(default_factory=list)  # 429s to send first, with these headers
    unresponsive: list[list[str]] = field(default_factory=list)  # SearXNG's unresponsive_engines
    in_flight: dict[str, int] = field(default_factory=lambda: {"engine": 0, "pages": 0})
    max_in_flight: dict[str, int] = field(default_factory=lambda: {"engine": 0, "pages": 0})
    base: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def results(self, query: str, items: list[tuple[str, str, str]]) -> None:
        self.by_query[query] = list(items)

    def page(self, path: str, html: str = "", **kw: Any) -> str:
        self.pages[path] = Page(kw.pop("body", html.encode("utf-8")), **kw)
        return self.base + path

    def url(self, path: str) -> str:
        return self.base + path

    def hits(self, prefix: str) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if r.path.startswith(prefix)]

    @property
    def engine_calls(self) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if not r.path.startswith("/pages/")]

    def settings(self, engine: str) -> dict:
        """The web_search settings patch pointing ``engine`` at this server."""
        s: dict[str, Any] = {"enable_web_search": True, "web_search_engine": engine}
        s.update({
            "searxng": {"searxng_query_url": f"{self.base}/search?q=<query>"},
            "tavily": {"tavily_api_key": KEY, "tavily_base_url": f"{self.base}/tavily"},
            "brave": {"brave_search_api_key": KEY, "brave_base_url": f"{self.base}/brave"},
            "google_pse": {"google_pse_api_key": KEY, "google_pse_engine_id": CX, "google_pse_base_url": f"{self.base}/google"},
            "serper": {"serper_api_key": KEY, "serper_base_url": f"{self.base}/serper"},
            "external": {"external_web_search_url": f"{self.base}/external", "external_web_search_api_key": KEY},
        }.get(engine, {}))
        return s


def _handler(fake: FakeEngines) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: Any = None, body: bytes | None = None, ctype: str = "application/json",
                  headers: dict[str, str] | None = None) -> None:
            data = body if body is not None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _record(self, body: Any) -> Recorded:
            parts = urlsplit(self.path)
            rec = Recorded(self.command, parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()},
                           {k.lower(): v for k, v in self.headers.items()}, body)
            with fake.lock:
                fake.requests.append(rec)
            return rec

        def do_GET(self) -> None:  # noqa: N802
            self._route(self._record(None))

        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = None
            self._route(self._record(body))

        def _items(self, query: str, count: int) -> list[tuple[str, str, str]]:
            return fake.by_query.get(query, [])[:count]

        def _route(self, r: Recorded) -> None:
            kind = "pages" if r.path.startswith("/pages/") else "engine"
            with fake.lock:
                fake.in_flight[kind] += 1
                fake.max_in_flight[kind] = max(fake.max_in_flight[kind], fake.in_flight[kind])
            try:
                self._answer(r)
            finally:
                with fake.lock:
                    fake.in_flight[kind] -= 1

        def _answer(self, r: Recorded) -> None:
            if r.path.startswith("/pages/"):
                page = fake.pages.get(r.path)
                if page is None:
                    return self._send(404, body=b"not found", ctype="text/plain")
                time.sleep(page.delay)
                return self._send(page.status, body=page.body, ctype=page.content_type)
            time.sleep(fake.engine_delay)
            if fake.engine_status >= 400:
                return self._send(fake.engine_status, {"error": "scripted failure"})
            with fake.lock:
                throttle = fake.rate_limited.pop(0) if fake.rate_limited else None
            if throttle is not None:
                return self._send(429, _limit_body(r.path), headers=throttle)
            bearer = r.headers.get("authorization") == f"Bearer {KEY}"
            body = r.body if isinstance(r.body, dict) else {}
            if r.path == "/search" and r.method == "GET":
                if r.query.get("format") != "json":
                    return self._send(403, body=b"<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>",
                                      ctype="text/html; charset=utf-8")
                if r.query.get("q") in fake.failing_queries:
                    return self._send(500, body=b"engine crashed", ctype="text/plain")
                items = self._items(r.query.get("q", ""), 100)
                return self._send(200, {"query": r.query.get("q"), "number_of_results": 0, "results": [
                    {"url": u, "title": t, "content": s, "engine": "fake"} for u, t, s in items],
                    "answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
                    "unresponsive_engines": fake.unresponsive})
            if r.path == "/tavily/search" and r.method == "POST":
                if not bearer:
                    return self._send(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
                if len(str(body.get("query", ""))) > 400:
                    return self._send(400, {"detail": {"error": "Query is too long. Max query length is 400 characters."}})
                if not 0 <= int(body.get("max_results", 5)) <= 20:
                    return self._send(400, {"detail": {"error": "Invalid max results."}})
                items = self._items(body.get("query", ""), int(body.get("max_results", 5)))
                return self._send(200, {"query": body.get("query"), "results": [
                    {"url": u, "title": t, "content": s, "score": 0.9, "raw_content": None} for u, t, s in items],
                    "response_time": 0.1})
            if r.path == "/brave/res/v1/web/search" and r.method == "GET":
                if r.headers.get("x-subscription-token") != KEY:
                    return self._send(422, _brave_error("SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.", 422))
                q, count, offset = r.query.get("q", ""), int(r.query.get("count", 20)), int(r.query.get("offset", 0))
                if not q or len(q) > 400 or len(q.split()) > 50 or not 1 <= count <= 20 or not 0 <= offset <= 9:
                    return self._send(422, _brave_error("VALIDATION", "Unable to validate request parameter(s)", 422))
                every = fake.by_query.get(q, [])
                items = every[offset * count:offset * count + count]
                return self._send(200, {"type": "search", "query": {"original": q,
                                                                     "more_results_available": len(every) > (offset + 1) * count},
                                        "web": {"type": "search", "results": [
                                            {"url": u, "title": t, "description": _highlight(s, q)} for u, t, s in items]}})
            if r.path == "/google/customsearch/v1" and r.method == "GET":
                if r.query.get("key") != KEY or r.query.get("cx") != CX:
                    return self._send(400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                                                      "status": "INVALID_ARGUMENT"}})
                start, num = int(r.query.get("start", 1)), int(r.query.get("num", 10))
                if not 1 <= num <= 10 or start + num > 101:
                    return self._send(400, {"error": {"code": 400, "message": "Request contains an invalid argument.",
                                                      "status": "INVALID_ARGUMENT"}})
                items = fake.by_query.get(r.query.get("q", ""), [])[start - 1:start - 1 + num]
                answer: dict[str, Any] = {"kind": "customsearch#search"}
                if items:  # no "items" at all when nothing was found, as the API answers
                    answer["items"] = [{"kind": "customsearch#result", "link": u, "title": t, "snippet": s} for u, t, s in items]
                return self._send(200, answer)
            if r.path == "/serper/search" and r.method == "POST":
                if r.headers.get("x-api-key") != KEY:
                    return self._send(403, {"message": "Unauthorized.", "statusCode": 403})
                items = self._items(body.get("q", ""), int(body.get("num", 10)))
                return self._send(200, {"searchParameters": {"q": body.get("q")}, "organic": [
                    {"title": t, "link": u, "snippet": s, "position": i + 1} for i, (u, t, s) in enumerate(items)]})
            if r.path == "/external" and r.method == "POST":
                if not bearer:
                    return self._send(401, {"detail": "Unauthorized"})
                items = self._items(body.get("query", ""), int(body.get("count", 5)))
                return self._send(200, [{"link": u, "title": t, "snippet": s} for u, t, s in items])
            return self._send(404, {"error": "no such route"})

    return Handler


def _brave_error(code: str, detail: str, status: int) -> dict[str, Any]:
    return {"type": "ErrorResponse", "error": {"id": "00000000-0000-0000-0000-000000000000", "status": status,
                                               "code": code, "detail": detail, "meta": {}}, "time": 1700000000}


def _limit_body(path: str) -> Any:
    """A 429's body in the shape of the engine the path belongs to."""
    if path.startswith("/brave/"):
        return _brave_error("RATE_LIMITED", "Request rate limit exceeded for plan.", 429)
    if path.startswith("/tavily/"):
        return {"detail": {"error": "Your request has been blocked due to excessive requests."}}
    if path.startswith("/google/"):
        return {"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries'.", "status": "RESOURCE_EXHAUSTED"}}
    return {"message": "Too many requests", "statusCode": 429}


def _highlight(snippet: str, query: str) -> str:
    """Brave's description markup: the text HTML-escaped, the query's words in <strong>."""
    words = {w.lower() for w in query.split()}
    return " ".join(f"<strong>{html.escape(w)}</strong>" if w.lower() in words else html.escape(w) for w in snippet.split(" "))


@contextmanager
def fake_engines() -> Iterator[FakeEngines]:
    fake = FakeEngines()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    httpd.daemon_threads = True
    fake.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()


def html_page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><title>{title}</title></head><body><main><article>"
            f"<h1>{title}</h1>{''.join(f'<p>{p}</p>' for p in body.split(chr(10)) if p.strip())}"
            "</article></main></body></html>")
