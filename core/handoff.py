"""Hand-off: the CLI runs its command inside the process that holds the embedded store.

The embedded vector store admits one process at a time, and the dashboard keeps it open.
So the process holding it (the dashboard) listens on a Unix socket in the data folder, and a
CLI command that finds the store busy sends its engine call there instead of failing. The
socket is created with mode 0600 inside the data folder: only the OS user who can already
read and write the data folder can connect, which is the same trust the CLI has anyway.
Calls run as the local admin, exactly as they would in the CLI's own process.

Only the methods in ``ALLOWED`` cross; arguments and results are pickled (both ends are this
codebase, run by the same user). Progress callbacks do not cross: the CLI shows none then.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import socket
import socketserver
import struct
import tempfile
import threading
from pathlib import Path
from typing import Any

from core.errors import CoreError, StoreError

log = logging.getLogger(__name__)

SOCKET_NAME = "engine.sock"
ALLOWED = frozenset({
    "create_kb", "list_kbs", "get_kb", "kb_stats", "update_kb", "delete_kb", "share_kb",
    "ingest_paths", "list_files", "delete_files", "reindex", "search", "doctor",
    "settings_masked", "save_settings", "ask", "compare", "status",
    "gdrive_status", "gdrive_connect_refresh_token", "gdrive_list", "gdrive_import", "gdrive_sync",
    "gdrive_disconnect", "sources", "sync_logs", "run_scheduled_syncs", "sync_source", "watch_web_pages",
})
_HEADER = struct.Struct("!Q")
_MAX_MESSAGE = 256 * 1024 * 1024


_MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 107 bytes on Linux


def socket_path(data_dir: Path) -> Path:
    """The socket in the data folder — or, when that path is too long for a Unix socket, a short
    one in the user's runtime or temp folder named after the data folder (the same in every process)."""
    path = Path(data_dir).resolve() / SOCKET_NAME
    if len(os.fsencode(str(path))) <= _MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(str(path))).hexdigest()[:16]
    runtime = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return Path(runtime) / f"ragdesk-{digest}.sock"


def _send(sock: socket.socket, obj: Any) -> None:
    data = pickle.dumps(obj)
    sock.sendall(_HEADER.pack(len(data)) + data)


def _recv(sock: socket.socket) -> Any:
    header = _recv_exact(sock, _HEADER.size)
    (size,) = _HEADER.unpack(header)
    if size > _MAX_MESSAGE:
        raise StoreError("hand-off message too large")
    return pickle.loads(_recv_exact(sock, size))  # noqa: S301 - same-user socket, see module doc


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise StoreError("the dashboard process closed the hand-off connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class HandoffServer:
    """Serves engine calls from the CLI on a Unix socket, one thread per connection."""

    def __init__(self, engine: Any, data_dir: Path):
        self.path = socket_path(data_dir)
        self.path.unlink(missing_ok=True)  # a stale socket of a dead process; we hold the store lock now
        engine_ref = engine

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                try:
                    method, args, kwargs = _recv(self.request)
                except (StoreError, OSError, pickle.UnpicklingError, ValueError):
                    return
                if method not in ALLOWED:
                    reply = ("err", StoreError(f"'{method}' cannot be handed off"))
                else:
                    try:
                        reply = ("ok", getattr(engine_ref, method)(*args, **kwargs))
                    except CoreError as exc:
                        reply = ("err", exc)
                    except Exception as exc:  # report, never kill the dashboard for a CLI call
                        log.exception("hand-off call %s failed", method)
                        reply = ("err", StoreError(f"the dashboard process failed on '{method}': {type(exc).__name__}: {exc}"))
                try:
                    _send(self.request, reply)
                except OSError:
                    pass  # the CLI went away; nothing to tell

        old_umask = os.umask(0o177)
        try:
            self._server = socketserver.ThreadingUnixStreamServer(str(self.path), Handler)
        finally:
            os.umask(old_umask)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="ragdesk-handoff", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.path.unlink(missing_ok=True)


class RemoteEngine:
    """Looks like an Engine to the CLI; each call runs in the process that holds the store."""

    def __init__(self, data_dir: Path):
        self.path = socket_path(data_dir)
        if not self.path.exists():
            raise StoreError("no running ragdesk process accepts commands for this data folder")

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        kwargs = {k: v for k, v in kwargs.items() if not callable(v)}  # progress callbacks stay here
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            try:
                sock.connect(str(self.path))
            except OSError as exc:
                raise StoreError(f"cannot reach the process holding the store ({exc.strerror})") from None
            _send(sock, (method, args, kwargs))
            status, value = _recv(sock)
        if status == "err":
            raise value
        return value

    def __getattr__(self, name: str) -> Any:
        if name not in ALLOWED:
            raise AttributeError(name)
        return lambda *a, **kw: self._call(name, *a, **kw)

    def ingest_paths(self, actor, kb, paths, progress=None):
        # the other process reads the files: give it absolute paths
        sources = [p if str(p).startswith(("http://", "https://")) else Path(p).resolve() for p in paths]
        return self._call("ingest_paths", actor, kb, sources)

    def reindex(self, actor, kb, progress=None):
        return self._call("reindex", actor, kb)

    def close(self) -> None:
        pass
