"""HTTP/1.1 by hand on a loopback socket: what a client that lies about, drips or never finishes
its body looks like to the server (httpx always sends a whole, well-formed request)."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class RawReply:
    status: int
    headers: dict[str, str]
    body: bytes
    sent: int  # body bytes the client got to send before the reply came (or the server closed)
    after: int = 0  # body bytes the server still took after its reply (a server that drains the rest)

    def json(self):
        return json.loads(self.body)


def _connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    return sock


def _read_reply(sock: socket.socket, sent: int, timeout: float) -> RawReply:
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a reply ({data[:200]!r})")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return RawReply(status, headers, body[:length], sent)


def request(url: str, method: str, path: str, headers: dict[str, str], body_chunks, *, declared_length: int | None,
            reply_timeout: float = 10.0, chunked: bool = False, drain_probe: int = 0) -> RawReply:
    """Send the head, then the body piece by piece for as long as the server reads it; return the
    reply as soon as one arrives (a server that answers before reading everything is seen as such).
    ``drain_probe``: after the reply, try to send this many more bytes and count what the server
    took (it should hang up rather than read on)."""
    sock = _connect(url)
    try:
        reply = _exchange(sock, url, method, path, headers, body_chunks, declared_length, reply_timeout, chunked)
        if drain_probe:
            reply.after = _keep_sending(sock, drain_probe)
        return reply
    finally:
        sock.close()


def _keep_sending(sock: socket.socket, limit: int) -> int:
    """Bytes the peer still accepted (up to ``limit``) before it hung up or stopped reading for 2 s."""
    sock.settimeout(2.0)
    taken, piece = 0, b"a" * 65536
    while taken < limit:
        try:
            taken += sock.send(piece)
        except (BrokenPipeError, ConnectionResetError, TimeoutError, OSError):
            break
    return taken


def _exchange(sock: socket.socket, url: str, method: str, path: str, headers: dict[str, str], body_chunks,
              declared_length: int | None, reply_timeout: float, chunked: bool) -> RawReply:
    head = [f"{method} {path} HTTP/1.1", f"Host: {urlsplit(url).netloc}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    if declared_length is not None:
        head.append(f"Content-Length: {declared_length}")
    if chunked:
        head.append("Transfer-Encoding: chunked")
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    sent = 0
    sock.setblocking(False)
    for piece in body_chunks:
        if chunked:
            piece = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        view = memoryview(piece)
        while view:
            try:
                n = sock.send(view)
                view = view[n:]
                sent += n
            except BlockingIOError:
                if _reply_waiting(sock):
                    sock.setblocking(True)
                    return _read_reply(sock, sent, reply_timeout)
                time.sleep(0.01)
            except (BrokenPipeError, ConnectionResetError):
                sock.setblocking(True)
                return _read_reply(sock, sent, reply_timeout)
        if _reply_waiting(sock):
            break
    sock.setblocking(True)
    return _read_reply(sock, sent, reply_timeout)


def _reply_waiting(sock: socket.socket) -> bool:
    import select

    readable, _, _ = select.select([sock], [], [], 0)
    return bool(readable)


def endless(piece: bytes = b"a" * 65536):
    """A body that never ends (the server must answer without reading it all)."""
    while True:
        yield piece
