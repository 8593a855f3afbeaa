"""A scripted chat-model server on 127.0.0.1 speaking the OpenAI and Ollama HTTP APIs.

Tests talk to it through the real ``openai`` / ``ollama`` clients, so the whole protocol path
is exercised. Each chat request (``POST /v1/chat/completions`` or ``POST /api/chat``) takes the
next scripted reply; metadata endpoints answer from ``models``. Every request is recorded::

    with fake_llm_server([text("你好"), tool_call("kb_search", {"q": "年假"})]) as srv:
        ...  # point a client at srv.openai_url or srv.ollama_url
        assert srv.chat_count == 1
        assert srv.chat_bodies()[0]["messages"][-1]["role"] == "user"
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

from . import ollama_wire, openai_wire

CHAT_PATHS = ("/v1/chat/completions", "/api/chat")


@dataclass
class Reply:
    """One scripted answer to a chat request."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200  # an HTTP error status sends `error_message` in the API's error shape
    error_message: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # sent with an error status (e.g. Retry-After)
    delay: float = 0.0  # seconds before the response starts (timeouts)
    stall: float = 0.0  # seconds of silence after the first streamed piece (read timeouts mid-stream)
    cut_after: int | None = None  # hang up after this many streamed pieces (a server that dies mid-answer)
    raw: str | None = None  # sent verbatim as the body (malformed output)
    chunk_chars: int = 4  # text and tool arguments are streamed in pieces this long
    finish_reason: str | None = None  # default: "tool_calls" with tool calls, else "stop"
    # A model still writing: after ``hold_after`` streamed pieces (the role chunk and the first
    # text piece) the reply waits until the test sets ``hold`` (at most a minute).
    hold: threading.Event | None = None
    hold_after: int = 2
    pace: float = 0.0  # seconds between streamed pieces: a model writing at its pace (latency benchmarks)
    whole: bool = False  # a server that does not stream: the whole completion as JSON, whatever "stream" says


def text(content: str, **kw: Any) -> Reply:
    return Reply(text=content, **kw)


def tool_call(name: str, arguments: dict[str, Any], *more: tuple[str, dict[str, Any]], **kw: Any) -> Reply:
    return Reply(tool_calls=[(name, arguments), *more], **kw)


def http_error(status: int, message: str = "scripted failure", headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=status, error_message=message, headers=dict(headers or {}))


def malformed(raw: str = "data: {this is not json\n\n") -> Reply:
    return Reply(raw=raw)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or None for GET / an unparseable body
    at: float = 0.0  # time.perf_counter() when the whole request had arrived (latency benchmarks)


class FakeLLMServer:
    def __init__(self, script: list[Reply] | None = None, *, models: list[str] | None = None,
                 api_key: str | None = None, context_length: int = 32768):
        self.script: list[Reply] = list(script or [])
        # When set, a chat request the script has no reply for is answered by responder(body)
        # (a benchmark's stand-in that reads the request); None: the script alone answers.
        self.responder: Callable[[Any], Reply] | None = None
        self.models = list(models or ["fake-model"])
        self.api_key = api_key  # when set, every request must send "Authorization: Bearer <key>"
        self.context_length = context_length  # reported by /api/show
        self.requests: list[RecordedRequest] = []
        self.replies_finished = 0  # streamed or whole replies sent to their end
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.openai_url = self.url + "/v1"
        self.ollama_url = self.url
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    # ------------------------------------------------------------ reading what was sent

    def bodies(self, path: str) -> list[Any]:
        with self._lock:
            return [r.body for r in self.requests if r.path == path]

    def chat_bodies(self) -> list[Any]:
        with self._lock:
            return [r.body for r in self.requests if r.path in CHAT_PATHS]

    @property
    def chat_count(self) -> int:
        return len(self.chat_bodies())

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    # ------------------------------------------------------------ lifecycle

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def start(self) -> "FakeLLMServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes scripted delays
        self._httpd.shutdown()
        self._httpd.server_close()

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _next_reply(self, body: Any = None) -> Reply:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        if self.responder is not None:
            return self.responder(body)
        # Loud on purpose: a test that makes more model calls than it scripted should fail.
        return http_error(500, "fake server: script exhausted")


@contextmanager
def fake_llm_server(script: list[Reply] | None = None, **kw: Any) -> Iterator[FakeLLMServer]:
    server = FakeLLMServer(script, **kw).start()
    try:
        yield server
    finally:
        server.stop()


# ---------------------------------------------------------------- protocol


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        fake = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeLLMServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
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
        fake._record(RecordedRequest(self.command, path, {k.lower(): v for k, v in self.headers.items()}, body,
                                     time.perf_counter()))
        openai_api = path.startswith("/v1/")
        if fake.api_key is not None and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            return self._error(openai_api, 401, "Incorrect API key provided")
        if self.command == "POST" and path in CHAT_PATHS:
            return self._chat(openai_api, body or {})
        if self.command == "GET" and path == "/v1/models":
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in fake.models]
            return self._json(200, {"object": "list", "data": data})
        if self.command == "GET" and path == "/api/tags":
            return self._json(200, {"models": [_ollama_model(m) for m in fake.models]})
        if self.command == "POST" and path == "/api/show":
            name = (body or {}).get("model") or (body or {}).get("name")
            if name not in fake.models:
                return self._error(False, 404, f"model '{name}' not found")
            return self._json(200, {
                "modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
                "details": {"family": "fake", "parameter_size": "1B", "quantization_level": "Q4_0"},
                "model_info": {"general.architecture": "fake", "fake.context_length": fake.context_length},
                "capabilities": ["completion", "tools"],
            })
        self._error(openai_api, 404, f"no route for {self.command} {path}")

    # ------------------------------------------------------------ chat

    def _chat(self, openai_api: bool, body: dict[str, Any]) -> None:
        reply = self.fake._next_reply(body)
        if reply.delay and self.fake._stopping.wait(reply.delay):
            return
        if reply.status != 200:
            return self._error(openai_api, reply.status, reply.error_message, reply.headers)
        model = body.get("model", "")
        if model not in self.fake.models:
            return self._error(openai_api, 404, f"model '{model}' not found")
        stream = bool(body.get("stream", not openai_api)) and not reply.whole  # Ollama streams unless told not to
        if reply.raw is not None:
            ctype = "text/event-stream" if openai_api and stream else "application/x-ndjson" if stream else "application/json"
            return self._send(200, ctype, [reply.raw.encode()])
        wire = openai_wire if openai_api else ollama_wire
        if stream:
            self._send(200, wire.STREAM_TYPE, wire.stream_chunks(reply, body), stall=reply.stall, cut_after=reply.cut_after,
                       hold=reply.hold, hold_after=reply.hold_after, pace=reply.pace)
        else:
            self._json(200, wire.whole_response(reply, body))
        with self.fake._lock:
            self.fake.replies_finished += 1

    # ------------------------------------------------------------ plumbing

    def _error(self, openai_api: bool, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        if openai_api:
            payload: Any = {"error": {"message": message, "type": "invalid_request_error", "code": status}}
        else:
            payload = {"error": message}
        self._json(status, payload, headers)

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send(self, status: int, content_type: str, pieces: Any, stall: float = 0.0, cut_after: int | None = None,
              hold: threading.Event | None = None, hold_after: int = 0, pace: float = 0.0) -> None:
        """Chunked transfer, flushed piece by piece, as a real streaming server does."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for i, piece in enumerate(pieces):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                if i == 0 and stall and self.fake._stopping.wait(stall):
                    return
                if pace and i and self.fake._stopping.wait(pace):  # i: the role chunk goes out at once
                    return
                if hold is not None and i + 1 == hold_after:
                    hold.wait(60)
                if cut_after is not None and i + 1 >= cut_after:
                    self.close_connection = True  # no terminating chunk: the body is visibly incomplete
                    return
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up mid-stream (e.g. it timed out); nothing more to send


def _ollama_model(name: str) -> dict[str, Any]:
    return {"name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z", "size": 1, "digest": "0" * 64,
            "details": {"family": "fake", "parameter_size": "1B", "quantization_level": "Q4_0"}}
