"""Hand-off: the CLI runs its command inside the process that holds the embedded store.

The embedded vector store admits one process at a time, and the dashboard keeps it open. So
the process holding it listens on a Unix socket and a CLI command that finds the store busy
sends its command there instead of failing.

It is an interface, not a pipe for objects:
- messages are length-prefixed UTF-8 JSON with a fixed schema (``core.handoff_commands``):
  only the commands the CLI sends, each with typed arguments; anything else is refused
  unread, and nothing is ever unpickled in either direction;
- the server asks the kernel who connected (``SO_PEERCRED``) and refuses any peer whose UID
  is not its own; it runs every command as the local admin itself — the client sends no Actor;
- the socket is created 0600 in the data folder (created 0700), or, when that path is too long
  for AF_UNIX, in a per-user 0700 folder ($XDG_RUNTIME_DIR, else /tmp/ragdesk-<uid>) whose
  owner and mode are verified; a folder or socket owned by someone else is never used;
- the client checks the socket's owner (lstat) before it connects.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets as pysecrets
import socket
import socketserver
import stat
import struct
import threading
from pathlib import Path
from typing import Any

from core.errors import CoreError, InvalidInput, PermissionDenied, StoreError
from core.handoff_commands import (
    COMMANDS,
    DECODERS,
    error_from_payload,
    error_payload,
    validate_request,
)

log = logging.getLogger(__name__)

SOCKET_NAME = "engine.sock"
_HEADER = struct.Struct("!I")
_MAX_REQUEST = 4 * 1024 * 1024  # a request is a command and a few names or paths
_MAX_REPLY = 256 * 1024 * 1024
_MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 107 bytes on Linux
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


# ---------------------------------------------------------------- where the socket lives

def private_dir(environ: dict | None = None) -> Path:
    """A folder only this OS user can enter: $XDG_RUNTIME_DIR, else /tmp/ragdesk-<uid> (made 0700).

    Raises StoreError when the folder exists but belongs to someone else or is open to others
    (someone may be waiting there for our socket)."""
    env = os.environ if environ is None else environ
    uid = os.getuid()
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        try:
            verify_private_dir(Path(runtime), uid)
            return Path(runtime)
        except StoreError as exc:
            log.warning("not using XDG_RUNTIME_DIR for the hand-off socket: %s", exc.message)
    folder = Path("/tmp") / f"ragdesk-{uid}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    verify_private_dir(folder, uid)
    return folder


def verify_private_dir(folder: Path, uid: int) -> None:
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise StoreError(f"cannot use {folder} for the hand-off socket: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{folder} is not a folder (a symlink or file is in its place): refusing it")
    if info.st_uid != uid:
        raise StoreError(f"{folder} belongs to uid {info.st_uid}, not to you (uid {uid}): refusing it")
    if info.st_mode & 0o077:
        raise StoreError(f"{folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}): refusing it")


def socket_candidates(data_dir: Path) -> list[Path]:
    """Where the socket may be, in order: the data folder, then the per-user private folder."""
    path = Path(data_dir).resolve() / SOCKET_NAME
    out = [path] if len(os.fsencode(str(path))) <= _MAX_SOCKET_PATH else []
    digest = hashlib.sha256(os.fsencode(str(path))).hexdigest()[:16]
    try:
        out.append(private_dir() / f"ragdesk-{digest}.sock")
    except StoreError as exc:
        if not out:
            raise
        log.warning("%s", exc.message)
    return out


def socket_path(data_dir: Path) -> Path:
    """The first place the socket may be (what the server tries first)."""
    return socket_candidates(data_dir)[0]


def _owned_socket(path: Path, uid: int) -> bool:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    return stat.S_ISSOCK(info.st_mode) and info.st_uid == uid


def find_socket(data_dir: Path) -> Path | None:
    """The socket a client may connect to: a real socket owned by this user, else None."""
    uid = os.getuid()
    for path in socket_candidates(data_dir):
        if _owned_socket(path, uid):
            return path
    return None


def _is_alive(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
            return True
        except OSError:
            return False


def _claim(path: Path, uid: int) -> bool:
    """Whether the server may bind ``path`` (clearing a dead socket of ours first)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    if info.st_uid != uid:
        log.warning("hand-off: %s belongs to uid %d; not using it", path, info.st_uid)
        return False
    if stat.S_ISSOCK(info.st_mode) and not _is_alive(path):
        path.unlink()  # a stale socket of a dead process of ours
        return True
    log.warning("hand-off: %s is in use or is not a socket; not using it", path)
    return False


# ---------------------------------------------------------------- framing

def encode(obj: Any) -> bytes:
    data = json.dumps(obj, ensure_ascii=False, allow_nan=False, default=str).encode("utf-8")
    return _HEADER.pack(len(data)) + data


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode(data: bytes) -> Any:
    """JSON only: anything else (a pickle, NaN, bad UTF-8) raises InvalidInput."""
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError):
        raise InvalidInput("a hand-off message must be UTF-8 JSON") from None


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise StoreError("the other end closed the hand-off connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(sock: socket.socket, limit: int) -> Any:
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    if size > limit:
        raise InvalidInput("hand-off message too large")
    return decode(_recv_exact(sock, size))


# ---------------------------------------------------------------- server

def peer_uid(sock: socket.socket) -> int:
    _pid, uid, _gid = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
    return uid


def check_peer(peer: int, own: int) -> None:
    """Refuse a peer that is not this process's own OS user."""
    if peer != own:
        raise PermissionDenied(f"hand-off refused: the caller runs as uid {peer}, this process as uid {own}")


def handle_request(engine: Any, message: Any) -> dict:
    """One validated command run as the local admin; the reply as a JSON-ready dict."""
    try:
        name, args = validate_request(message)
        return {"ok": True, "result": COMMANDS[name].run(engine, args)}
    except CoreError as exc:
        return {"ok": False, "error": error_payload(exc)}
    except Exception:  # report, never kill the dashboard for a CLI call
        error_id = pysecrets.token_hex(4)
        log.exception("hand-off command failed (error id %s)", error_id)
        return {"ok": False, "error": {"kind": "StoreError",
                                       "message": f"the dashboard process failed on this command (error id {error_id}; see its log)"}}


class HandoffServer:
    """Serves the CLI's commands on a Unix socket, one thread per connection."""

    def __init__(self, engine: Any, data_dir: Path):
        uid = os.getuid()
        self.path: Path | None = next((p for p in socket_candidates(data_dir) if _claim(p, uid)), None)
        if self.path is None:
            raise StoreError("no private place for the hand-off socket (see the warnings above)")
        engine_ref = engine

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                try:
                    check_peer(peer_uid(self.request), uid)
                    message = receive(self.request, _MAX_REQUEST)
                    reply = handle_request(engine_ref, message)
                except CoreError as exc:
                    log.warning("hand-off request refused: %s", exc.message)
                    reply = {"ok": False, "error": error_payload(exc)}
                except OSError:
                    return
                try:
                    data = encode(reply)
                except ValueError:  # e.g. a NaN score: JSON has no such number
                    log.exception("hand-off reply could not be written as JSON")
                    data = encode({"ok": False, "error": {"kind": "StoreError",
                                                          "message": "the result could not be sent back as JSON"}})
                try:
                    self.request.sendall(data)
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
        if self.path is not None and _owned_socket(self.path, os.getuid()):
            self.path.unlink(missing_ok=True)


# ---------------------------------------------------------------- client

class RemoteEngine:
    """Looks like the part of an Engine the CLI uses; each call runs in the process holding the store.

    The ``actor`` the CLI passes is not sent: the server runs commands as the local admin."""

    def __init__(self, data_dir: Path):
        path = find_socket(data_dir)
        if path is None:
            raise StoreError("no running ragdesk process of yours accepts commands for this data folder")
        self.path = path

    def call(self, command: str, **args: Any) -> Any:
        if not _owned_socket(self.path, os.getuid()):  # checked again right before connecting
            raise StoreError(f"{self.path} is not a socket owned by you: refusing to connect")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            try:
                sock.connect(str(self.path))
            except OSError as exc:
                raise StoreError(f"cannot reach the process holding the store ({exc.strerror})") from None
            try:
                request = encode({"command": command, "args": args})
            except (TypeError, ValueError) as exc:  # NaN, infinity, an object: not in the schema
                raise InvalidInput(f"'{command}' cannot be handed off with these arguments ({exc})") from None
            sock.sendall(request)
            reply = receive(sock, _MAX_REPLY)
        if not isinstance(reply, dict) or "ok" not in reply:
            raise StoreError("the dashboard process sent a malformed reply")
        if not reply["ok"]:
            raise error_from_payload(reply.get("error"))
        decoder = DECODERS.get(command)
        return decoder(reply.get("result")) if decoder else reply.get("result")

    # the CLI's calls, with the engine's signatures (actor ignored, callbacks stay here)
    def create_kb(self, actor, name, description="", visibility="private"):
        return self.call("create_kb", name=name, description=description, visibility=visibility)

    def list_kbs(self, actor):
        return self.call("list_kbs")

    def kb_stats(self, actor, ref):
        return self.call("kb_stats", ref=ref)

    def update_kb(self, actor, ref, *, name):
        return self.call("rename_kb", ref=ref, name=name)

    def delete_kb(self, actor, ref):
        return self.call("delete_kb", ref=ref)

    def ingest_paths(self, actor, kb, paths, progress=None):
        # the other process reads the files: give it absolute paths
        sources = [str(p) if str(p).startswith(("http://", "https://")) else str(Path(p).resolve()) for p in paths]
        return self.call("ingest_paths", kb=kb, paths=sources)

    def list_files(self, actor, kb=None, status=None):
        return self.call("list_files", kb=kb, status=status)

    def delete_files(self, actor, file_ids):
        return self.call("delete_files", file_ids=list(file_ids))

    def reindex(self, actor, kb, progress=None):
        return self.call("reindex", kb=kb)

    def search(self, actor, query, kbs=None, *, mode=None, top_k=None, min_score=None):
        return self.call("search", query=query, kbs=kbs, mode=mode, top_k=top_k, min_score=min_score)

    def doctor(self, actor, repair=False):
        return self.call("doctor", repair=repair)

    def settings_masked(self):
        return self.call("settings_masked")

    def save_settings(self, actor, patch):
        return self.call("save_settings", patch=patch)

    def ask(self, actor, question, *, kbs=None, chat_id=None, mode=None, temporary=False, web=False):
        return self.call("ask", question=question, kbs=kbs, mode=mode, chat_id=chat_id, temporary=temporary, web=web)

    def compare(self, actor, question, kbs=None, web=False):
        return self.call("compare", question=question, kbs=kbs, web=web)

    # Google Drive and synced sources: the dashboard process's local admin owns the connection
    def gdrive_status(self, actor):
        return self.call("gdrive_status")

    def gdrive_connect_refresh_token(self, actor, refresh_token):
        return self.call("gdrive_connect_refresh_token", refresh_token=refresh_token)

    def gdrive_list(self, actor, folder_id=None, query=""):
        return self.call("gdrive_list", folder_id=folder_id, query=query)

    def gdrive_import(self, actor, kb, ids, *, watch=False, progress=None):
        return self.call("gdrive_import", kb=kb, ids=list(ids), watch=watch)

    def gdrive_sync(self, actor, kb=None):
        return self.call("gdrive_sync", kb=kb)

    def run_scheduled_syncs(self):
        return self.call("run_scheduled_syncs")

    def gdrive_disconnect(self, actor):
        return self.call("gdrive_disconnect")

    def sources(self, actor, kind=None, kb=None):
        return self.call("sources", kind=kind, kb=kb)

    def watch_web_pages(self, actor, kb, urls, *, watch=True):
        return self.call("watch_web_pages", kb=kb, urls=list(urls), watch=watch)

    def sync_source(self, actor, source_id):
        return self.call("sync_source", source_id=source_id)

    def sync_logs(self, actor, source_id=None, limit=20):
        return self.call("sync_logs", source_id=source_id, limit=limit)

    def close(self) -> None:
        pass
