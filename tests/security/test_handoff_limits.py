"""Threat: a local process of the same user (a buggy script, a stuck CLI) holds or abuses the
hand-off socket — idle connections that pin threads, a request that nests JSON until the
parser gives up — or the dashboard is stopped by SIGTERM and leaves its socket behind."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from core.handoff.channel import HandoffServer, find_socket, receive

REPO = Path(__file__).resolve().parents[2]


class NoEngine:
    def list_kbs(self, actor):
        return []


def _connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    sock.settimeout(20)  # a reply the server never sends fails the test instead of hanging it
    return sock


def _handler_threads() -> int:
    return sum(1 for t in threading.enumerate() if "process_request" in t.name)


def test_an_idle_connection_is_closed_after_the_idle_timeout(tmp_path):
    server = HandoffServer(NoEngine(), tmp_path, idle_timeout=0.5)
    try:
        sock = _connect(server.path)
        sock.sendall(b"\x00\x00")  # half a header, then nothing (a stuck or hostile client)
        assert sock.recv(1) == b""  # the server hung up on it (a blocked recv here would time out: 20 s)
        sock.close()
    finally:
        server.close()


def test_a_client_trickling_a_byte_at_a_time_is_cut_at_the_message_deadline(tmp_path):
    """One byte every 4 s kept a connection 48 s under a 10 s timeout per read; scaled down here:
    a byte every 0.2 s under 1 s for the message. The header claims a 1 KB request it never sends."""
    server = HandoffServer(NoEngine(), tmp_path, idle_timeout=1.0)
    try:
        sock = _connect(server.path)
        sock.sendall(struct.pack(">I", 1024))
        started, closed_after = time.monotonic(), None
        for _ in range(40):  # 8 s of trickling at most
            time.sleep(0.2)
            try:
                sock.sendall(b" ")
            except OSError:  # the server hung up: the write fails
                closed_after = time.monotonic() - started
                break
        sock.close()
    finally:
        server.close()
    assert closed_after is not None and closed_after < 2.5, closed_after


def test_idle_connections_hold_a_bounded_number_of_threads(tmp_path):
    server = HandoffServer(NoEngine(), tmp_path, idle_timeout=60)
    idle = []
    try:
        idle = [_connect(server.path) for _ in range(60)]
        late = _connect(server.path)  # accepted after all 60: every one of them was served or refused
        payload = b'{"command": "list_kbs", "args": {}}'
        late.sendall(struct.pack("!I", len(payload)) + payload)
        reply = receive(late, 1 << 20)
        late.close()
        assert not reply["ok"] and "too many" in reply["error"]["message"]
        assert _handler_threads() <= 16
    finally:
        for sock in idle:
            sock.close()
        server.close()


def test_deeply_nested_json_gets_a_refusal_not_a_dropped_connection(tmp_path):
    server = HandoffServer(NoEngine(), tmp_path)
    try:
        payload = b"[" * 200_000 + b"]" * 200_000
        with _connect(server.path) as sock:
            sock.sendall(struct.pack("!I", len(payload)) + payload)
            reply = receive(sock, 1 << 20)
        assert reply["ok"] is False and reply["error"]["kind"] == "InvalidInput"
        with _connect(server.path) as sock:  # and the server still answers the next one
            ok = b'{"command": "list_kbs", "args": {}}'
            sock.sendall(struct.pack("!I", len(ok)) + ok)
            assert receive(sock, 1 << 20) == {"ok": True, "result": []}
    finally:
        server.close()


def _serve_then_wait(data: Path, own_handler: bool) -> subprocess.Popen:
    script = textwrap.dedent(f"""
        import signal, sys, time
        from core.config import RuntimeConfig
        from core.engine import Engine
        if {own_handler!r}:  # like Streamlit: SIGTERM stops the server and the process exits normally
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        engine = Engine(RuntimeConfig.from_env({str(data)!r}), serve_handoff=True)
        print("ready", flush=True)
        time.sleep(120)
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update(PYTHONPATH=str(REPO), RAGDESK_EMBEDDING__MODEL="hash-64")
    return subprocess.Popen([sys.executable, "-c", script], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)


def _sigterm_leaves_no_socket(tmp_path, own_handler: bool, expected_rc: int) -> None:
    data = tmp_path / "data"
    proc = _serve_then_wait(data, own_handler)
    try:
        assert proc.stdout.readline().strip() == "ready"
        path = find_socket(data)
        assert path is not None and path.exists()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == expected_rc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not path.exists()


def test_sigterm_leaves_no_stale_socket(tmp_path):
    _sigterm_leaves_no_socket(tmp_path, own_handler=False, expected_rc=-signal.SIGTERM)


def test_sigterm_handled_by_the_app_leaves_no_stale_socket(tmp_path):
    _sigterm_leaves_no_socket(tmp_path, own_handler=True, expected_rc=0)
