"""One declaration per operation (issue 19): the Engine's methods, their access rule and the CLI
hand-off all come from ``@operation`` on a service method (core/services/declare.py)."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict, Field

from core.engine import OPERATIONS, Engine
from core.errors import InvalidInput, PermissionDenied
from core.handoff.channel import RemoteEngine
from core.handoff.commands import commands, request_args, validate_request
from core.services.declare import Http, operation
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


class _Shelf:
    """What a caller may see of a toy shelf: no owner."""

    def __init__(self, name: str, owner: str, toys: list[str]):
        self.name, self.owner, self.toys = name, owner, toys


class _ShelfOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    name: str
    toys: list[str]


class _ShelfService:
    def __init__(self):
        self.calls = []

    @operation(http=(Http("GET", "/toys/{shelf}", out=_ShelfOut, summary="a shelf", rename={"shelf": "ref"},
                          params=("ref", "limit")),
                     Http("POST", "/toys/{shelf}/peek", name="peek_shelf", out=_ShelfOut, summary="peek",
                          rename={"shelf": "ref"}, params=("ref",), fixed={"limit": 1},
                          reply=lambda asked, shelf: {"name": asked["shelf"].upper(), "toys": shelf.toys})))
    def look_at_shelf(self, actor: Actor, ref: str, limit: Annotated[int, Field(ge=1)] = 10,
                      quietly: bool = False) -> _Shelf:
        self.calls.append((actor.name, ref, limit, quietly))
        return _Shelf(ref, "someone-else", ["ball", "kite", "yoyo"][:limit])


class _ShelfHost:
    def __init__(self):
        self.services = SimpleNamespace(shelves=_ShelfService())


def test_an_http_route_is_part_of_the_operations_declaration():
    """The route's input comes from the method's signature (names renamed, limits kept, fixed
    parameters not offered), its output shows only what the output model names."""
    from core.api.registry import routes_of

    routes = routes_of(install(_ShelfHost, {"shelves": _ShelfService}).values())
    assert set(routes) == {"look_at_shelf", "peek_shelf"}
    look, peek = routes["look_at_shelf"], routes["peek_shelf"]
    assert list(look.input.model_fields) == ["shelf", "limit"] and look.body == "none" and look.query_fields == ("limit",)
    assert list(peek.input.model_fields) == ["shelf"] and peek.body == "json"
    host = _ShelfHost()
    shown = look.run(host, PLAIN, look.input.model_validate({"shelf": "top", "limit": 2}))
    assert shown.model_dump() == {"name": "top", "toys": ["ball", "kite"]}  # no owner
    assert peek.run(host, PLAIN, peek.input.model_validate({"shelf": "low"})).model_dump() == {"name": "LOW", "toys": ["ball"]}
    assert host.services.shelves.calls == [("plain", "top", 2, False), ("plain", "low", 1, False)]
    from pydantic import ValidationError

    with pytest.raises(ValidationError):  # the signature's limit holds on the route
        look.input.model_validate({"shelf": "top", "limit": 0})
    with pytest.raises(ValidationError):  # a parameter the route does not take is refused, not passed on
        peek.input.model_validate({"shelf": "low", "quietly": True})


def test_route_declarations_refuse_what_cannot_be_served():
    from core.api.registry import routes_of

    with pytest.raises(ValueError, match="Actor"):
        operation(access="open", why="x", http=Http("GET", "/x", out=_ShelfOut, summary="x"))

    class PathNotTaken:
        @operation(http=Http("GET", "/toys/{shelf}", out=_ShelfOut, summary="x"))
        def look(self, actor: Actor, ref: str) -> _Shelf: ...

    class StreamsWithoutSink:
        @operation(http=Http("POST", "/toys", out=_ShelfOut, summary="x", streams=True))
        def look(self, actor: Actor, ref: str) -> _Shelf: ...

    for service, words in ((PathNotTaken, "path field"), (StreamsWithoutSink, "on_event")):
        host = type("Host", (), {})
        with pytest.raises(TypeError, match=words):
            routes_of(install(host, {"s": service}).values())
