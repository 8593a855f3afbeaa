"""An embeddings server on 127.0.0.1 speaking OpenAI's ``/v1/embeddings`` and Ollama's ``/api/embed``.

Vectors come from the real HashEmbedder (so texts that share words get close vectors),
scaled by ``scale`` so clients must normalise them themselves. Requests are recorded, and
failures (or held requests) can be queued for the next embedding requests::

    with fake_embedding_server(api_key="sk-test") as srv:
        srv.fail_next(http_error(500), garbage("<html>"))
        ...  # point a client at srv.openai_url or srv.ollama_url
        assert srv.embed_count == 3
"""

from __future__ import annotations

import json
import random
import socket
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

from core.embeddings.fake import HashEmbedder

EMBED_PATHS = ("/v1/embeddings", "/api/embed")


@dataclass
class Failure:
    """What to answer instead of embeddings, once."""

    status: int = 200
    raw: str | None = None  # sent verbatim (malformed JSON, HTML, a wrong shape)
    message: str = "scripted failure"  # the API's error text for an HTTP error status
    delay: float = 0.0  # seconds of silence before answering (timeouts)
    # A held request: ``entered`` is set when it arrives, and it is answered (normally, unless
    # status/raw say otherwise) only once ``gate`` is set.
    gate: threading.Event | None = None
    entered: threading.Event | None = None


def http_error(status: int, message: str = "scripted failure") -> Failure:
    return Failure(status=status, message=message)


def garbage(raw: str = '{"data": [oops') -> Failure:
    return Failure(raw=raw)


def slow(seconds: float) -> Failure:
    return Failure(delay=seconds)


def held() -> Failure:
    """A request that waits at the server until the test sets ``.gate`` (``.entered`` says it came)."""
    return Failure(gate=threading.Event(), entered=threading.Event())


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None


class FakeEmbeddingServer:
    def __init__(self, *, dimension: int = 16, api_key: str | None = None, scale: float = 3.0,
                 shuffle: bool = True, models: tuple[str, ...] = ("fake-embed",)):
        self.embedder = HashEmbedder(dimension)
        self.api_key = api_key  # when set, requests must send "Authorization: Bearer <key>"
        self.scale = scale
        self.shuffle = shuffle  # OpenAI replies list items out of order; clients must use "index"
        self.models = models
        self.requests: list[RecordedRequest] = []
        self._failures: list[Failure] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()  # open keep-alive connections, closed by stop()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.openai_url = self.url + "/v1"
        self.ollama_url = self.url
        # a short poll keeps shutdown (and so each test's teardown) fast
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def fail_next(self, *failures: Failure) -> None:
        with self._lock:
            self._failures.extend(failures)

    def embed_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path in EMBED_PATHS]

    @property
    def embed_count(self) -> int:
        return len(self.embed_requests())

    def batch_sizes(self) -> list[int]:
        sizes = []
        for r in self.embed_requests():
            inp = (r.body or {}).get("input")
            sizes.append(len(inp) if isinstance(inp, list) else 1)
        return sizes

    def vectors(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) * self.scale for x in row] for row in self.embedder.embed_documents(texts)]

    def start(self) -> "FakeEmbeddingServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop like a server that dies: the port closes and so do the clients' open connections."""
        self._stopping.set()  # held and slow requests give up
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            for conn in self._connections:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:  # already closed by the client
                    pass

    def _take_failure(self) -> Failure | None:
        with self._lock:
            return self._failures.pop(0) if self._failures else None


@contextmanager
def fake_embedding_server(**kw: Any) -> Iterator[FakeEmbeddingServer]:
    server = FakeEmbeddingServer(**kw).start()
    try:
        yield server
    finally:
        server.stop()


def _make_handler(server: FakeEmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        fake = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeEmbeddingServer

    def setup(self) -> None:
        super().setup()
        with self.fake._lock:
            self.fake._connections.add(self.connection)

    def finish(self) -> None:
        with self.fake._lock:
            self.fake._connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._handle(None)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self._handle(body)

    def _handle(self, body: Any) -> None:
        fake, path = self.fake, self.path.split("?")[0]
        with fake._lock:
            fake.requests.append(RecordedRequest(self.command, path, dict(self.headers.items()), body))
        openai = path.startswith("/v1/")
        sent = self.headers.get("Authorization", "")
        if fake.api_key is not None and sent != f"Bearer {fake.api_key}":
            # echo the key back, as real servers sometimes do: clients must scrub it
            return self._error(openai, 401, f"Incorrect API key provided: {sent.removeprefix('Bearer ')}")
        if self.command == "GET" and path == "/v1/models":
            return self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in fake.models]})
        if self.command != "POST" or path not in EMBED_PATHS:
            return self._error(openai, 404, f"no route for {self.command} {path}")
        failure = fake._take_failure()
        if failure is not None:
            if failure.delay and fake._stopping.wait(failure.delay):
                return
            if failure.gate is not None:
                failure.entered.set()
                while not failure.gate.wait(0.05):
                    if fake._stopping.is_set():
                        return
            if failure.raw is not None:
                return self._send(200, failure.raw.encode(), "application/json")
            if failure.status != 200:
                return self._error(openai, failure.status, failure.message)
        body = body if isinstance(body, dict) else {}
        model, texts = body.get("model"), body.get("input")
        if model not in fake.models:
            return self._error(openai, 404, f"model '{model}' not found")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            return self._error(openai, 400, "input must be a string or a non-empty list of strings")
        vectors = fake.vectors(texts)
        if openai:
            data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
            if fake.shuffle:
                random.Random(len(data)).shuffle(data)
            tokens = sum(len(t.split()) for t in texts)
            return self._json(200, {"object": "list", "data": data, "model": model,
                                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})
        return self._json(200, {"model": model, "embeddings": vectors,
                                "total_duration": 1000, "load_duration": 10, "prompt_eval_count": len(texts)})

    def _error(self, openai: bool, status: int, message: str) -> None:
        if openai:
            payload = {"error": {"message": message, "type": "invalid_request_error", "code": status}}
        else:
            payload = {"error": message}
        self._json(status, payload)

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
