"""Hand-off: the CLI runs its command inside the process that holds the embedded store.

The embedded vector store admits one process at a time, and the dashboard keeps it open. So
the process holding it listens on a Unix socket and a CLI command that finds the store busy
sends its command there instead of failing.

It is an interface, not a pipe for objects:
- messages are length-prefixed UTF-8 JSON; the commands and their typed arguments are the
  engine's operations declared with ``handoff`` (``core.handoff.commands``); anything else is
  refused unread, and nothing is ever unpickled in either direction;
- the server asks the kernel who connected (``SO_PEERCRED``) and refuses any peer whose UID
  is not its own; it runs every command as the local admin itself — the client sends no Actor —
  except ``api_call`` (the HTTP API), which runs as the user of the API token it carries, the
  token checked by this process's engine;
- the socket is created 0600 in the data folder (created 0700), or, when that path is too long
  for AF_UNIX, in a per-user 0700 folder ($XDG_RUNTIME_DIR, else /tmp/ragdesk-<uid>) whose
  owner and mode are verified; a folder or socket owned by someone else is never used
  (``core.handoff.paths``);
- the client checks the socket's owner (lstat) before it connects;
- a command that sends events (``api_call`` asked with ``"events": true``: an answer streamed to
  the API's client) writes each as ``{"event": {...}}`` the moment it happens, then the reply; a
  reader gone mid-answer (closed, or not reading within the deadline) is left: the command runs
  on to its end unheard, as it would in the API's own process, and nothing is logged as failed;
- a connection has ``IDLE_TIMEOUT_SECONDS`` to send its whole request and to read the whole
  reply, and each event (a deadline per message, not per read), at most ``MAX_CONNECTIONS``
  are served at once (more get a "too many" reply), JSON nested past the parser's depth is
  refused with a reply, and the socket file goes when the process ends (exit or SIGTERM).
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import logging
import os
import secrets as pysecrets
import signal
import socket
import socketserver
import struct
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import CoreError, InvalidInput, PermissionDenied, StoreError
from core.handoff.commands import (
    commands,
    decode_result,
    error_from_payload,
    error_payload,
    request_args,
    run_command,
    validate_request,
    wants_events,
)
from core.handoff.paths import (  # noqa: F401 (re-exported: the CLI and tests import them from here)
    SOCKET_NAME,
    claim_path,
    find_socket,
    owned_socket,
    private_dir,
    socket_candidates,
    socket_path,
    verify_private_dir,
)

log = logging.getLogger("core.handoff")

_HEADER = struct.Struct("!I")
_MAX_REQUEST = 4 * 1024 * 1024  # a request is a command and a few names or paths
_MAX_REPLY = 256 * 1024 * 1024
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


# ---------------------------------------------------------------- framing

def encode(obj: Any) -> bytes:
    data = json.dumps(obj, ensure_ascii=False, allow_nan=False, default=str).encode("utf-8")
    return _HEADER.pack(len(data)) + data


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode(data: bytes) -> Any:
    """JSON only: anything else (a pickle, NaN, bad UTF-8) raises InvalidInput; so does JSON
    nested deeper than the parser goes (it would otherwise end the connection unanswered)."""
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError):
        raise InvalidInput("a hand-off message must be UTF-8 JSON") from None
    except RecursionError:
        raise InvalidInput("a hand-off message must not nest this deep") from None


def _wait_until(sock: socket.socket, deadline: float | None) -> None:
    """The socket's timeout for its next call: what is left until ``deadline`` (None: as set)."""
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the hand-off message took longer than its deadline")
        sock.settimeout(left)


def _recv_exact(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    chunks, left = [], n
    while left:
        _wait_until(sock, deadline)  # one deadline for the whole message, not a timeout per read
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise StoreError("the other end closed the hand-off connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(sock: socket.socket, limit: int, deadline: float | None = None) -> Any:
    """One message; ``deadline`` (time.monotonic()): all of it by then (a client trickling a byte
    at a time kept a connection 48 s when the 10 s was per read)."""
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size, deadline))
    if size > limit:
        raise InvalidInput("hand-off message too large")
    return decode(_recv_exact(sock, size, deadline))


def send_all(sock: socket.socket, data: bytes, deadline: float | None = None) -> None:
    view = memoryview(data)
    while view:
        _wait_until(sock, deadline)
        view = view[sock.send(view):]


# ---------------------------------------------------------------- server

def peer_uid(sock: socket.socket) -> int:
    _pid, uid, _gid = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
    return uid


def check_peer(peer: int, own: int) -> None:
    """Refuse a peer that is not this process's own OS user."""
    if peer != own:
        raise PermissionDenied(f"hand-off refused: the caller runs as uid {peer}, this process as uid {own}")


def handle_request(engine: Any, message: Any, on_event: Callable[[Any], None] | None = None) -> dict:
    """One validated command run as the local admin; the reply as a JSON-ready dict.
    ``on_event``: the command's events, when the request asked for them."""
    try:
        name, args = validate_request(message)
        return {"ok": True, "result": run_command(engine, name, args, on_event)}
    except CoreError as exc:
        return {"ok": False, "error": error_payload(exc)}
    except Exception:  # report, never kill the dashboard for a CLI call
        error_id = pysecrets.token_hex(4)
        log.exception("hand-off command failed (error id %s)", error_id)
        return {"ok": False, "error": {"kind": "StoreError",
                                       "message": f"the dashboard process failed on this command (error id {error_id}; see its log)"}}


def event_json(event: Any) -> dict:
    """An event as it crosses the socket: a dataclass's fields (an AnswerEvent's kind, message, data)."""
    if dataclasses.is_dataclass(event) and not isinstance(event, type):
        return dataclasses.asdict(event)
    return event if isinstance(event, dict) else {"kind": str(event)}


class EventWriter:
    """Writes a command's events on its connection as they happen, each within ``timeout``. A
    reader gone (closed, or not reading in time) is not the command's failure: the writer falls
    silent and the command runs on to its end, as it would with no one listening."""

    def __init__(self, sock: socket.socket, timeout: float):
        self._sock, self._timeout = sock, timeout
        self._lock = threading.Lock()  # one message at a time, should an event come from another thread
        self.gone = False

    def __call__(self, event: Any) -> None:
        try:
            data = encode({"event": event_json(event)})
        except ValueError:  # e.g. a NaN in its data: the event is left out, the answer goes on
            log.warning("a hand-off event could not be written as JSON: left out")
            return
        with self._lock:
            if self.gone:
                return
            try:
                send_all(self._sock, data, time.monotonic() + self._timeout)
            except OSError:
                self.gone = True
                log.info("the hand-off client stopped reading events: the command runs on unheard")


IDLE_TIMEOUT_SECONDS = 10.0  # a client sends its request, and reads its reply, within this
MAX_CONNECTIONS = 16  # connections served at once; more are refused with a reply, not queued

_BUSY = {"ok": False, "error": {"kind": "StoreError",
                                "message": "the dashboard process has too many hand-off connections open; try again"}}


class _BoundedServer(socketserver.ThreadingUnixStreamServer):
    """One thread per connection, at most ``MAX_CONNECTIONS`` of them: idle or hostile clients
    cannot pin an unbounded number of threads."""

    daemon_threads = True
    request_queue_size = 64  # connections waiting to be accepted (each is then served or refused at once)

    def __init__(self, path: str, handler: type, max_connections: int):
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__(path, handler)

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(encode(_BUSY))
            except OSError:
                pass  # the client is gone already
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class HandoffServer:
    """Serves the CLI's commands on a Unix socket, one thread per connection (bounded), each
    connection given ``idle_timeout`` seconds for its whole request and its whole reply. The socket file is
    removed on close, at interpreter exit, and on a SIGTERM the process leaves at its default."""

    def __init__(self, engine: Any, data_dir: Path, *, idle_timeout: float = IDLE_TIMEOUT_SECONDS,
                 max_connections: int = MAX_CONNECTIONS):
        uid = os.getuid()
        self.path: Path | None = next((p for p in socket_candidates(data_dir) if claim_path(p, uid)), None)
        if self.path is None:
            raise StoreError("no private place for the hand-off socket (see the warnings above)")
        engine_ref = engine

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                # the whole request within idle_timeout, and the whole reply: a deadline per message
                events = None
                try:
                    check_peer(peer_uid(self.request), uid)
                    message = receive(self.request, _MAX_REQUEST, time.monotonic() + idle_timeout)
                    events = EventWriter(self.request, idle_timeout) if wants_events(message) else None
                    reply = handle_request(engine_ref, message, events)
                except CoreError as exc:
                    log.warning("hand-off request refused: %s", exc.message)
                    reply = {"ok": False, "error": error_payload(exc)}
                except OSError:
                    return
                if events is not None and events.gone:
                    return  # the client left mid-answer: nobody to send the reply to
                try:
                    data = encode(reply)
                except ValueError:  # e.g. a NaN score: JSON has no such number
                    log.exception("hand-off reply could not be written as JSON")
                    data = encode({"ok": False, "error": {"kind": "StoreError",
                                                          "message": "the result could not be sent back as JSON"}})
                try:
                    send_all(self.request, data, time.monotonic() + idle_timeout)
                except OSError:
                    pass  # the CLI went away; nothing to tell

        old_umask = os.umask(0o177)
        try:
            self._server = _BoundedServer(str(self.path), Handler, max_connections)
        finally:
            os.umask(old_umask)
        self._closed = False
        self._thread = threading.Thread(target=self._server.serve_forever, name="ragdesk-handoff", daemon=True)
        self._thread.start()
        _remove_on_exit(self)

    def remove_socket(self) -> None:
        """Take the socket file away (our own only): no client finds a dead socket afterwards."""
        if self.path is not None and owned_socket(self.path, os.getuid()):
            self.path.unlink(missing_ok=True)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _OPEN_SERVERS.discard(self)
        self._server.shutdown()
        self._server.server_close()
        self.remove_socket()


# Servers whose socket file must go when the process ends: at a normal exit (Streamlit turns
# SIGTERM into one) through atexit; at a SIGTERM left at its default disposition through a
# handler that removes the files and then lets the signal end the process as it would have.
_OPEN_SERVERS: "weakref.WeakSet[HandoffServer]" = weakref.WeakSet()
_exit_hooks_installed = False


def _remove_all_sockets() -> None:
    for server in list(_OPEN_SERVERS):
        server.remove_socket()


def _on_sigterm(signum: int, _frame: Any) -> None:
    _remove_all_sockets()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _remove_on_exit(server: HandoffServer) -> None:
    global _exit_hooks_installed
    _OPEN_SERVERS.add(server)
    if _exit_hooks_installed:
        return
    _exit_hooks_installed = True
    atexit.register(_remove_all_sockets)
    # Only where nobody else handles SIGTERM, and only from the main thread (Python's rule);
    # an application's own handler (Streamlit's) is left alone: it exits normally, so atexit runs.
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)


# ---------------------------------------------------------------- client

class RemoteEngine:
    """Looks like an Engine to the CLI for every operation declared with ``handoff``; each call
    runs in the process holding the store (the methods are derived from the declarations).

    The ``actor`` the CLI passes is not sent: the server runs commands as the local admin."""

    def __init__(self, data_dir: Path):
        path = find_socket(data_dir)
        if path is None:
            raise StoreError("no running ragdesk process of yours accepts commands for this data folder")
        self.path = path

    def call(self, command: str, *, on_event: Callable[[dict], None] | None = None, **args: Any) -> Any:
        """Send one command with JSON-ready arguments; its JSON result (or the typed error).
        ``on_event``: the command's events (JSON objects) as they happen in the serving process; an
        exception it raises ends the call and closes the connection (the command runs on there)."""
        if not owned_socket(self.path, os.getuid()):  # checked again right before connecting
            raise StoreError(f"{self.path} is not a socket owned by you: refusing to connect")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            try:
                sock.connect(str(self.path))
            except OSError as exc:
                raise StoreError(f"cannot reach the process holding the store ({exc.strerror})") from None
            try:
                asked = {"command": command, "args": args, **({"events": True} if on_event is not None else {})}
                request = encode(asked)
            except (TypeError, ValueError) as exc:  # NaN, infinity, an object: not in the schema
                raise InvalidInput(f"'{command}' cannot be handed off with these arguments ({exc})") from None
            sock.sendall(request)
            reply = receive(sock, _MAX_REPLY)
            while on_event is not None and isinstance(reply, dict) and "event" in reply:
                if not isinstance(reply["event"], dict):
                    raise StoreError("the dashboard process sent a malformed event")
                on_event(reply["event"])
                reply = receive(sock, _MAX_REPLY)
        if not isinstance(reply, dict) or "ok" not in reply:
            raise StoreError("the dashboard process sent a malformed reply")
        if not reply["ok"]:
            raise error_from_payload(reply.get("error"))
        return reply.get("result")

    def __getattr__(self, name: str) -> Any:
        op = commands().get(name) if not name.startswith("_") else None
        if op is None:
            raise AttributeError(f"{name!r} cannot be handed off to the process holding the store")

        def handed_off(*args: Any, **kwargs: Any) -> Any:
            return decode_result(op, self.call(name, **request_args(op, args, kwargs)))

        handed_off.__name__, handed_off.__doc__ = name, op.function.__doc__
        return handed_off

    def close(self) -> None:
        pass
