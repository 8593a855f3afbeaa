"""An HTTP proxy on 127.0.0.1 for tests: records every request line it is sent, opens CONNECT
tunnels to loopback addresses only (anything else is answered 403 and recorded, never dialled),
and refuses requests handed over by name (``GET http://name/...``) with 403, recording them."""

from __future__ import annotations

import ipaddress
import socket
import socketserver
import threading
from contextlib import contextmanager
from typing import Iterator


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(8192).decode("latin-1").strip()
        while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
            pass
        self.server.requests.append(line)  # type: ignore[attr-defined]
        method, _, rest = line.partition(" ")
        target = rest.rsplit(" ", 1)[0]
        if method != "CONNECT":
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        host, _, port = target.rpartition(":")
        try:
            loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
        except ValueError:
            loopback = False  # a name: the proxy would resolve it itself, which is what must not happen
        if not loopback:
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        _relay(self.connection, upstream)


def _relay(a: socket.socket, b: socket.socket) -> None:
    def pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    other = threading.Thread(target=pump, args=(b, a), daemon=True)
    other.start()
    pump(a, b)
    other.join(5)
    b.close()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def connect_proxy() -> Iterator[_Server]:
    """``server.url`` (http://127.0.0.1:port) and ``server.requests`` (request lines)."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.requests = []  # type: ignore[attr-defined]
    server.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
