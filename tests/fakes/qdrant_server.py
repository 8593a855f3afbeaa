"""A Qdrant server stand-in on 127.0.0.1: the REST routes ``QdrantServerStore`` uses, answered by
qdrant-client's own in-memory engine, with scripted refusals and held requests.

Faults happen at the protocol level, the way a real server shows them::

    with fake_qdrant_server() as srv:
        srv.refuse_next("PUT", r"/collections/ragdesk_kb_\\w+$", status=503)   # one create refused
        gate = srv.hold_next("PUT", r"/collections/ragdesk_kb_\\w+$")          # the next one waits
        ...
        gate.set()                                                             # let it through

Only the routes the store calls are served (exists, create, drop, list, info, payload index,
upsert, delete, set payload, count, facet, scroll, query, query batch); anything else is a 404.
Every request is recorded with its body (``requests``, ``bodies``), so a test can count the
round trips a search makes and read the filters it sent.
"""

from __future__ import annotations

import json
import re
import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import urlsplit

from qdrant_client import QdrantClient, models

_VERSION = "1.20.0"  # what the client's compatibility check is told


@dataclass
class _Rule:
    method: str
    path: re.Pattern
    status: int = 0  # a refusal with this HTTP status
    gate: threading.Event | None = None  # a held request waits for this
    entered: threading.Event = field(default_factory=threading.Event)  # set when the held request arrives


class FakeQdrantServer:
    def __init__(self) -> None:
        self.engine = QdrantClient(location=":memory:")
        self.requests: list[tuple[str, str]] = []  # (method, path)
        self.bodies: list[tuple[str, str, Any]] = []  # (method, path, JSON body)
        self._rules: list[_Rule] = []
        self._lock = threading.Lock()
        self._engine_lock = threading.Lock()  # the in-memory engine is not meant for concurrent writers
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    # ------------------------------------------------------------ scripting
    def refuse_next(self, method: str, path_regex: str, status: int = 503) -> None:
        """The next request matching answers ``status`` with a Qdrant-shaped error, unserved."""
        with self._lock:
            self._rules.append(_Rule(method, re.compile(path_regex), status=status))

    def hold_next(self, method: str, path_regex: str) -> _Rule:
        """The next request matching waits (before it is served) until ``rule.gate`` is set;
        ``rule.entered`` is set once it has arrived."""
        rule = _Rule(method, re.compile(path_regex), gate=threading.Event())
        with self._lock:
            self._rules.append(rule)
        return rule

    def count(self, method: str, path_regex: str) -> int:
        pattern = re.compile(path_regex)
        with self._lock:
            return sum(1 for m, p in self.requests if m == method and pattern.search(p))

    def since(self, mark: int) -> list[tuple[str, str]]:
        """The requests made after ``mark`` (a length of ``requests`` taken earlier)."""
        with self._lock:
            return list(self.requests[mark:])

    def _take_rule(self, method: str, path: str, body: Any = None) -> _Rule | None:
        with self._lock:
            self.requests.append((method, path))
            self.bodies.append((method, path, body))
            for rule in self._rules:
                if rule.method == method and rule.path.search(path):
                    self._rules.remove(rule)
                    return rule
        return None

    # ------------------------------------------------------------ lifecycle
    def start(self) -> "FakeQdrantServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            for rule in self._rules:
                if rule.gate is not None:
                    rule.gate.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self.engine.close()

    # ------------------------------------------------------------ the routes
    def serve(self, method: str, path: str, body: Any) -> Any:
        parts = path.strip("/").split("/")
        if path == "/":
            return {"title": "qdrant - vector search engine", "version": _VERSION}
        if parts == ["collections"] and method == "GET":
            return {"collections": [{"name": c.name} for c in self.engine.get_collections().collections]}
        if len(parts) < 2 or parts[0] != "collections":
            raise _HttpError(404, f"no route for {method} {path}")
        name, rest = parts[1], parts[2:]
        e = self.engine
        if rest == ["exists"]:
            return {"exists": e.collection_exists(name)}
        if rest == [] and method == "PUT":
            if e.collection_exists(name):
                raise _HttpError(409, f"Wrong input: Collection `{name}` already exists!")
            spec = models.CreateCollection.model_validate(body or {})
            return e.create_collection(name, vectors_config=spec.vectors, sparse_vectors_config=spec.sparse_vectors)
        if rest == [] and method == "DELETE":
            return e.delete_collection(name)
        self._must_exist(name)
        if rest == [] and method == "GET":
            return e.get_collection(name).model_dump(mode="json")
        if rest == ["index"]:
            spec = models.CreateFieldIndex.model_validate(body)
            with warnings.catch_warnings():  # the in-memory engine says indexes change nothing there
                warnings.filterwarnings("ignore", message="Payload indexes have no effect")
                e.create_payload_index(name, spec.field_name, spec.field_schema)
            return {"operation_id": 0, "status": "completed"}
        if rest == ["points"] and method == "PUT":
            points = models.PointsList.model_validate(body).points
            return e.upsert(name, points=points).model_dump(mode="json")
        if rest == ["points", "delete"]:
            selector = models.FilterSelector.model_validate(body)
            return e.delete(name, points_selector=selector).model_dump(mode="json")
        if rest == ["points", "payload"] and method == "POST":
            spec = models.SetPayload.model_validate(body)
            return e.set_payload(name, payload=spec.payload, points=models.FilterSelector(filter=spec.filter),
                                 key=spec.key).model_dump(mode="json")
        if rest == ["points", "count"]:
            spec = models.CountRequest.model_validate(body or {})
            return e.count(name, count_filter=spec.filter, exact=bool(spec.exact)).model_dump(mode="json")
        if rest == ["facet"]:
            spec = models.FacetRequest.model_validate(body)
            return {"hits": self._facet(name, spec)}
        if rest == ["points", "scroll"]:
            spec = models.ScrollRequest.model_validate(body or {})
            records, offset = e.scroll(name, scroll_filter=spec.filter, limit=spec.limit or 10, offset=spec.offset,
                                       with_payload=spec.with_payload if spec.with_payload is not None else True)
            return {"points": [r.model_dump(mode="json") for r in records], "next_page_offset": offset}
        if rest == ["points", "query"]:
            spec = models.QueryRequest.model_validate(body)
            found = e.query_points(name, query=spec.query, using=spec.using, prefetch=spec.prefetch,
                                   query_filter=spec.filter, limit=spec.limit or 10,
                                   with_payload=spec.with_payload if spec.with_payload is not None else True)
            return found.model_dump(mode="json")
        if rest == ["points", "query", "batch"]:
            spec = models.QueryRequestBatch.model_validate(body)
            return [self._query(name, q) for q in spec.searches]
        raise _HttpError(404, f"no route for {method} {path}")

    def _query(self, name: str, spec: models.QueryRequest) -> dict:
        found = self.engine.query_points(name, query=spec.query, using=spec.using, prefetch=spec.prefetch,
                                         query_filter=spec.filter, limit=spec.limit or 10,
                                         with_payload=spec.with_payload if spec.with_payload is not None else True)
        return found.model_dump(mode="json")

    def _facet(self, name: str, spec: models.FacetRequest) -> list[dict]:
        # Counted here from the payloads: the in-memory engine hands keyword values that look
        # like UUIDs back re-formatted, where a server returns them as stored.
        counts: dict[Any, int] = {}
        offset = None
        while True:
            records, offset = self.engine.scroll(name, scroll_filter=spec.filter, limit=512, offset=offset,
                                                 with_payload=[spec.key])
            for record in records:
                value = (record.payload or {}).get(spec.key)
                if value is not None:
                    counts[value] = counts.get(value, 0) + 1
            if offset is None:
                break
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[: spec.limit or 10]
        return [{"value": value, "count": n} for value, n in ranked]

    def _must_exist(self, name: str) -> None:
        if not self.engine.collection_exists(name):
            raise _HttpError(404, f"Not found: Collection `{name}` doesn't exist!")


class _HttpError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@contextmanager
def fake_qdrant_server() -> Iterator[FakeQdrantServer]:
    server = FakeQdrantServer().start()
    try:
        yield server
    finally:
        server.stop()


def _handler(fake: FakeQdrantServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._handle()

        def do_PUT(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def do_DELETE(self) -> None:
            self._handle()

        def _handle(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw) if raw else None
            path = urlsplit(self.path).path
            rule = fake._take_rule(self.command, path, body)
            if rule is not None and rule.gate is not None:
                rule.entered.set()
                rule.gate.wait()
            if rule is not None and rule.status:
                return self._reply(rule.status, {"status": {"error": "scripted refusal"}, "time": 0.0})
            try:
                with fake._engine_lock:
                    result = fake.serve(self.command, path, body)
            except _HttpError as exc:
                return self._reply(exc.status, {"status": {"error": exc.message}, "time": 0.0})
            if path == "/":
                return self._reply(200, result)
            self._reply(200, {"result": result, "status": "ok", "time": 0.0})

        def _reply(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
