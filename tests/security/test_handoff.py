"""Threat: a local process (or another local user) that can reach the CLI hand-off socket tries to
run code in the dashboard, act as someone else, or get the CLI to talk to its own socket.

Each test is one attack; the real server runs on a real Unix socket in a tmp data folder."""

from __future__ import annotations

import os
import pickle
import socket
import stat
import struct
from pathlib import Path

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.errors import InvalidInput, PermissionDenied, StoreError
from core.handoff.channel import (
    HandoffServer,
    RemoteEngine,
    check_peer,
    decode,
    encode,
    find_socket,
    peer_uid,
    private_dir,
    receive,
    socket_candidates,
    verify_private_dir,
)
from core.types import SYSTEM_ACTOR, Actor

PLAIN = Actor(user_id="u-mallory", role="user", name="mallory")


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("RAGDESK_EMBEDDING__MODEL", "hash-64")
    data = tmp_path / "data"
    engine = Engine(RuntimeConfig.from_env(data), serve_handoff=True)
    yield engine, data
    engine.close()


def _raw_request(path: Path, payload: bytes) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        sock.sendall(struct.pack("!I", len(payload)) + payload)
        return receive(sock, 1 << 20)


class Boom:
    def __reduce__(self):  # what a pickle payload would run on load
        return (os.system, ("touch /tmp/ragdesk-pwned-by-pickle",))


def test_a_pickle_payload_is_refused_and_never_executed(served, tmp_path):
    engine, data = served
    marker = Path("/tmp/ragdesk-pwned-by-pickle")
    marker.unlink(missing_ok=True)
    reply = _raw_request(find_socket(data), pickle.dumps(("create_kb", (SYSTEM_ACTOR, "x"), {}, Boom())))
    assert reply["ok"] is False and "JSON" in reply["error"]["message"]
    assert not marker.exists()
    assert engine.list_kbs(SYSTEM_ACTOR) == []


def test_an_unknown_command_is_refused(served):
    engine, data = served
    for command in ("close", "_handoff", "save_settings_raw", "__class__"):
        reply = _raw_request(find_socket(data), encode({"command": command, "args": {}})[4:])
        assert reply == {"ok": False, "error": {"kind": "InvalidInput", "module": "core.errors",
                                          "message": f"unknown hand-off command {command!r}"}}


def test_off_schema_arguments_are_refused(served):
    engine, data = served
    path = find_socket(data)
    wrong_type = _raw_request(path, encode({"command": "create_kb", "args": {"name": ["a"]}})[4:])
    assert wrong_type["ok"] is False and "wrong type" in wrong_type["error"]["message"]
    extra = _raw_request(path, encode({"command": "doctor", "args": {"repair": True, "progress": "x"}})[4:])
    assert extra["ok"] is False and "progress" in extra["error"]["message"]
    assert decode(b'{"a": 1}') == {"a": 1}
    with pytest.raises(InvalidInput):
        decode(b'{"min_score": NaN}')


def test_an_actor_sent_by_the_client_is_ignored(served):
    engine, data = served
    forged = {"user_id": "someone-else", "role": "admin", "name": "forged"}
    reply = _raw_request(find_socket(data), encode({"command": "create_kb", "actor": forged,
                                                    "args": {"name": "kb1", "actor": forged}})[4:])
    assert reply["ok"] is True
    kb = engine.get_kb(SYSTEM_ACTOR, "kb1")
    assert kb.owner_id == SYSTEM_ACTOR.user_id  # run as the local admin, whatever was sent


def test_the_cli_client_round_trips_typed_results_and_errors(served):
    engine, data = served
    remote = RemoteEngine(data)
    kb = remote.create_kb(PLAIN, "kb2")  # the actor argument is not sent
    assert kb.name == "kb2" and kb.owner_id == SYSTEM_ACTOR.user_id
    assert [k.name for k in remote.list_kbs(PLAIN)] == ["kb2"]
    from core.errors import NotFound

    with pytest.raises(NotFound):
        remote.kb_stats(PLAIN, "missing")
    assert remote.doctor(PLAIN).healthy


def test_drive_and_source_commands_take_only_their_typed_arguments(served):
    engine, data = served
    path = find_socket(data)
    for bad in ({"command": "gdrive_import", "args": {"kb": "team", "ids": "a,b"}},
                {"command": "gdrive_connect_refresh_token", "args": {"refresh_token": 7}},
                {"command": "sync_logs", "args": {"limit": True}},
                {"command": "ask", "args": {"question": "q", "web": "yes"}},
                {"command": "sync_source", "args": {"source_id": "s", "trigger": "schedule"}},
                {"command": "run_scheduled_syncs", "args": {"interval_minutes": 0}}):
        reply = _raw_request(path, encode(bad)[4:])
        assert reply["ok"] is False and reply["error"]["kind"] == "InvalidInput", bad
    assert engine.sources(SYSTEM_ACTOR) == [] and engine.sync_logs(SYSTEM_ACTOR) == []


def test_a_drive_connection_made_through_the_hand_off_is_the_local_operators(served):
    from tests.fakes.drive_server import FakeDrive

    engine, data = served
    with FakeDrive() as drive:
        engine.save_settings(SYSTEM_ACTOR, {"gdrive": drive.settings(), "parsing": {"url_allow_hosts": ["127.0.0.1"]}})
        forged = {"user_id": "u-mallory", "role": "admin", "name": "mallory"}
        reply = _raw_request(find_socket(data), encode({
            "command": "gdrive_connect_refresh_token", "actor": forged,
            "args": {"refresh_token": drive.issue_refresh_token("alice"), "actor": forged}})[4:])
        assert reply["ok"] is True and reply["result"]["email"] == "alice@example.com"
        assert engine.gdrive_status(SYSTEM_ACTOR)["connected"]  # the local admin's, whatever was sent
        assert RemoteEngine(data).gdrive_status(PLAIN) == engine.gdrive_status(SYSTEM_ACTOR)

def test_a_peer_with_another_uid_is_refused():
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert peer_uid(left) == os.getuid()  # the kernel's answer for a real peer
    check_peer(os.getuid(), os.getuid())
    with pytest.raises(PermissionDenied, match="uid 4242"):
        check_peer(4242, os.getuid())


def test_the_fallback_folder_is_private_and_a_foreign_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    folder = private_dir()
    info = os.lstat(folder)
    assert info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o755)
    open_folder.chmod(0o755)
    with pytest.raises(StoreError, match="open to other users"):
        verify_private_dir(open_folder, os.getuid())
    with pytest.raises(StoreError, match="belongs to uid"):
        verify_private_dir(tmp_path, os.getuid() + 1)  # as seen by another user
    link = tmp_path / "link"
    link.symlink_to(folder)
    with pytest.raises(StoreError, match="not a folder"):
        verify_private_dir(link, os.getuid())
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(open_folder))  # an unsafe runtime dir is not used
    assert private_dir() == folder


def test_a_long_data_path_uses_the_private_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    [path] = socket_candidates(deep)
    assert path.parent == private_dir() and len(str(path)) <= 100


def test_the_client_does_not_connect_to_a_file_that_is_not_our_socket(served):
    engine, data = served
    remote = RemoteEngine(data)
    remote.path.unlink()
    remote.path.write_text("squatter")  # something else in its place
    with pytest.raises(StoreError, match="not a socket owned by you"):
        remote.list_kbs(SYSTEM_ACTOR)
    assert find_socket(data) is None


def test_a_stale_socket_of_ours_does_not_stop_the_server(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    stale = data / "engine.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(stale))
    dead.close()  # the file stays, nobody listens
    assert stale.exists()

    class NoEngine:
        pass

    server = HandoffServer(NoEngine(), data)
    try:
        assert server.path == stale.resolve() and find_socket(data) == server.path
    finally:
        server.close()


def test_a_squatted_path_is_skipped_for_the_private_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    data = tmp_path / "data"
    data.mkdir()
    (data / "engine.sock").write_text("not a socket")  # squatted (here: a plain file in its place)

    class NoEngine:
        pass

    server = HandoffServer(NoEngine(), data)
    try:
        assert server.path.parent == private_dir()
        assert find_socket(data) == server.path
    finally:
        server.close()


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as a second local user")
OTHER_UID = 4242


SYSTEM_PYTHON = "/usr/bin/python3"  # the venv's interpreter lives under /root, out of the second user's reach


@needs_root
@pytest.mark.skipif(not os.access(SYSTEM_PYTHON, os.X_OK), reason="no system python for the second user")
def test_a_real_second_user_is_refused_by_the_peer_check(tmp_path):
    """Even with the socket's file mode opened to everyone, the kernel-reported UID decides."""
    import subprocess
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="ragdesk-peer-", dir="/tmp"))
    try:
        data = root / "data"
        engine = Engine(RuntimeConfig(data_dir=data, database_url=f"sqlite:///{data / 'x.db'}"), serve_handoff=True)
        try:
            path = find_socket(data)
            for p in (root, data):
                p.chmod(0o755)
            path.chmod(0o666)  # the file mode no longer protects it: only SO_PEERCRED does
            client = (
                "import json, socket, struct, sys\n"
                "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
                "body = json.dumps({'command': 'create_kb', 'args': {'name': 'planted'}}).encode()\n"
                "try:\n"
                "    s.sendall(struct.pack('!I', len(body)) + body)\n"
                "except BrokenPipeError:\n"
                "    pass  # refused before the request was read: the reply is waiting\n"
                "n = struct.unpack('!I', s.recv(4))[0]; print(s.recv(n).decode())\n"
            )
            out = subprocess.run([SYSTEM_PYTHON, "-I", "-c", client, str(path)], user=OTHER_UID,
                                 capture_output=True, text=True, timeout=30)
            assert out.returncode == 0, out.stderr
            assert f"the caller runs as uid {OTHER_UID}" in out.stdout
            assert engine.list_kbs(SYSTEM_ACTOR) == []  # nothing was run
        finally:
            engine.close()
    finally:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


@needs_root
def test_a_socket_owned_by_another_user_is_neither_used_nor_replaced(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    data = tmp_path / "data"
    data.mkdir()
    planted = data / "engine.sock"
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    squatter.bind(str(planted))
    squatter.listen(1)  # alive, listening, and another user's
    os.chown(planted, OTHER_UID, OTHER_UID)
    try:
        assert find_socket(data) is None  # the CLI will not talk to it

        class NoEngine:
            pass

        server = HandoffServer(NoEngine(), data)
        try:
            assert server.path.parent == private_dir()  # the dashboard starts, elsewhere
            assert os.lstat(planted).st_uid == OTHER_UID  # and leaves the planted file alone
            assert find_socket(data) == server.path
        finally:
            server.close()
    finally:
        squatter.close()


@needs_root
def test_a_private_folder_owned_by_another_user_is_refused(tmp_path):
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    os.chown(folder, OTHER_UID, OTHER_UID)
    with pytest.raises(StoreError, match=f"belongs to uid {OTHER_UID}"):
        verify_private_dir(folder, os.getuid())
