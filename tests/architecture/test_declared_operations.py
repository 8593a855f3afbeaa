"""One declaration per operation (issue 19): the Engine's methods, their access rule and the CLI
hand-off all come from ``@operation`` on a service method (core/services/declare.py)."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest

from core.engine import OPERATIONS, Engine
from core.errors import InvalidInput, PermissionDenied
from core.handoff.channel import RemoteEngine
from core.handoff.commands import commands, request_args, validate_request
from core.services.declare import operation
from core.services.facade import install
from core.types import SYSTEM_ACTOR, Actor

PLAIN = Actor(user_id="u-plain", role="user", name="plain")


class _ToyService:
    def __init__(self):
        self.calls = []

    @operation(access="admin", admin_does="toss the toy")
    def toss_toy(self, actor: Actor, height: int, label: str = "") -> str:
        """Toss it."""
        self.calls.append((actor.name, height, label))
        return f"{label}:{height}"

    @operation()
    def look_at_toy(self, actor: Actor) -> list[str]:
        return [c[2] for c in self.calls]


class _Host:
    def __init__(self):
        self.services = SimpleNamespace(toys=_ToyService())


def test_a_new_operation_is_one_decorated_method():
    ops = install(_Host, {"toys": _ToyService})
    assert set(ops) == {"toss_toy", "look_at_toy"}
    host = _Host()
    assert str(inspect.signature(_Host.toss_toy)) == str(inspect.signature(_ToyService.toss_toy))
    assert _Host.toss_toy.__doc__ == "Toss it."
    with pytest.raises(PermissionDenied, match="only an admin may toss the toy"):
        host.toss_toy(PLAIN, 3)
    assert host.services.toys.calls == []  # refused before the service ran
    assert host.toss_toy(SYSTEM_ACTOR, 3, label="ball") == "ball:3"
    assert host.look_at_toy(PLAIN) == ["ball"]
    with pytest.raises(TypeError, match="declared twice"):
        install(_Host, {"toys": _ToyService})


def test_declarations_refuse_what_they_cannot_enforce():
    with pytest.raises(ValueError, match="admin_does"):
        operation(access="admin")
    with pytest.raises(ValueError, match="why"):
        operation(access="open")


def test_every_engine_method_but_the_lifecycle_is_a_declared_operation():
    public = {n for n, f in inspect.getmembers(Engine, callable) if not n.startswith("_")}
    assert public - set(OPERATIONS) == {"open", "close", "start_workers", "stop_workers"}
    assert all(getattr(Engine, n).operation is OPERATIONS[n] for n in OPERATIONS)


def test_the_hand_off_is_the_operations_declared_with_it():
    handed = commands()
    assert {"create_kb", "list_kbs", "ingest_paths", "search", "ask", "compare", "doctor", "reindex",
            "gdrive_import", "sync_source", "api_call", "import_curated_csv"} <= set(handed)
    assert not {"submit_ingest", "attach_to_chat", "sign_in", "file_original"} & set(handed)
    remote = RemoteEngine.__new__(RemoteEngine)  # no socket needed to see its methods
    for name, op in handed.items():
        assert callable(getattr(remote, name))
        op.output, op.decode  # every result type can cross as JSON
    with pytest.raises(AttributeError):
        remote.submit_ingest


def test_hand_off_arguments_follow_the_signature():
    search = commands()["search"]
    assert request_args(search, (PLAIN, "leave policy"), {"top_k": 3}) == {"query": "leave policy", "top_k": 3}
    assert validate_request({"command": "search", "args": {"query": "q", "top_k": 3}})[1]["top_k"] == 3
    for bad in ({"query": "q", "top_k": "3"}, {"query": "q", "top_k": 2.5}, {"top_k": 3}, {"query": "q", "actorx": 1}):
        with pytest.raises(InvalidInput):
            validate_request({"command": "search", "args": bad})
    # through its queued twin: only the twin's arguments cross (a manual sync cannot claim the schedule)
    sync = commands()["sync_source"]
    assert request_args(sync, (PLAIN, "s-1"), {}) == {"source_id": "s-1"}
    with pytest.raises(InvalidInput, match="trigger"):
        request_args(sync, (PLAIN, "s-1"), {"trigger": "schedule"})
    # paths are made absolute on the client's side, before they leave
    ingest = commands()["ingest_paths"]
    assert request_args(ingest, (PLAIN, "kb", ["relative.md"]), {})["paths"][0].startswith("/")
