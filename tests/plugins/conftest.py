"""The toy plugins, loaded as a deployment loads its own (RAGDESK_PLUGINS), and the local HTTP
server that the toy search engine and the toy source talk to."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from core.plugins import PLUGINS_ENV, load_plugins

TOY_KEY, TOY_TOKEN = "toy-key-Zq81", "toy-token-Wv27"


@pytest.fixture(scope="session", autouse=True)
def toy_plugins():
    # what a start-up does with RAGDESK_PLUGINS set: import the listed modules (nothing under core/ names them)
    assert load_plugins({PLUGINS_ENV: "tests.plugins.toy"}) == ["tests.plugins.toy"]


@dataclass
class ToyServer:
    base: str = ""
    hits: dict[str, list] = field(default_factory=dict)  # query -> [(url, title, snippet)]
    items: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)  # id -> (name, version, bytes)
    requests: list[tuple[str, dict, dict]] = field(default_factory=list)  # (path, query, headers)


def _handler(toy: ToyServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            toy.requests.append((parts.path, query, dict(self.headers)))
            if parts.path == "/toy-search":
                if self.headers.get("X-Toy-Key") != TOY_KEY:
                    return self._send(401, b"{}")
                hits = [{"u": u, "t": t, "s": s} for u, t, s in toy.hits.get(query.get("q", ""), [])]
                return self._send(200, json.dumps({"hits": hits}).encode())
            if self.headers.get("Authorization") != f"Token {TOY_TOKEN}":
                return self._send(403, b"{}")
            if parts.path == "/items":
                listing = [{"id": i, "name": n, "version": v} for i, (n, v, _) in toy.items.items()]
                return self._send(200, json.dumps(listing).encode())
            item = toy.items.get(parts.path.removeprefix("/items/"))
            return self._send(200, item[2], "text/markdown") if item else self._send(404, b"{}")

    return Handler


@pytest.fixture
def toy_server():
    toy = ToyServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(toy))
    toy.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield toy
    server.shutdown()
    server.server_close()
