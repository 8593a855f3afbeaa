"""The hand-off's interface: the commands the CLI sends, their argument schema, and how each
result is written as JSON and read back into the types the CLI prints.

Nothing else crosses the socket: no objects, no Actor (the server runs every command as the
local admin), no callables. A request is ``{"command": name, "args": {...}}``; an argument
that the schema does not name, or whose type is wrong, refuses the whole request.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable

from core import errors as errors_mod
from core.errors import CoreError, InvalidInput
from core.types import SYSTEM_ACTOR

_STR, _OPT_STR, _BOOL = (str,), (str, type(None)), (bool,)
_STR_LIST, _OPT_STR_LIST = ("list[str]",), ("list[str]", type(None))
_OPT_INT, _OPT_FLOAT, _DICT = (int, type(None)), (int, float, type(None)), (dict,)


@dataclass(frozen=True)
class Command:
    """One command: its arguments (name -> accepted types, and whether it may be omitted)."""

    params: dict[str, tuple]
    optional: frozenset[str]
    run: Callable[[Any, dict], Any]  # (engine, args) -> JSON-ready result


def _kb(kb) -> dict:
    return kb.model_dump(mode="json")


def _vars(obj) -> dict:
    return asdict(obj)


def _save_settings(engine, patch: dict) -> None:
    engine.save_settings(SYSTEM_ACTOR, patch)  # the saved settings are not sent back: they hold secrets


COMMANDS: dict[str, Command] = {
    "create_kb": Command({"name": _STR, "description": _STR, "visibility": _STR}, frozenset({"description", "visibility"}),
                         lambda e, a: _kb(e.create_kb(SYSTEM_ACTOR, a["name"], a.get("description", ""),
                                                      a.get("visibility", "private")))),
    "list_kbs": Command({}, frozenset(), lambda e, a: [_kb(k) for k in e.list_kbs(SYSTEM_ACTOR)]),
    "kb_stats": Command({"ref": _STR}, frozenset(), lambda e, a: e.kb_stats(SYSTEM_ACTOR, a["ref"])),
    "rename_kb": Command({"ref": _STR, "name": _STR}, frozenset(),
                         lambda e, a: _kb(e.update_kb(SYSTEM_ACTOR, a["ref"], name=a["name"]))),
    "delete_kb": Command({"ref": _STR}, frozenset(), lambda e, a: e.delete_kb(SYSTEM_ACTOR, a["ref"])),
    "ingest_paths": Command({"kb": _STR, "paths": _STR_LIST}, frozenset(),
                            lambda e, a: [_vars(r) for r in e.ingest_paths(SYSTEM_ACTOR, a["kb"], a["paths"])]),
    "list_files": Command({"kb": _OPT_STR, "status": _OPT_STR}, frozenset({"kb", "status"}),
                          lambda e, a: [f.model_dump(mode="json") for f in
                                        e.list_files(SYSTEM_ACTOR, a.get("kb"), a.get("status"))]),
    "delete_files": Command({"file_ids": _STR_LIST}, frozenset(),
                            lambda e, a: [_vars(r) for r in e.delete_files(SYSTEM_ACTOR, a["file_ids"])]),
    "reindex": Command({"kb": _STR}, frozenset(), lambda e, a: _vars(e.reindex(SYSTEM_ACTOR, a["kb"]))),
    "search": Command({"query": _STR, "kbs": _OPT_STR_LIST, "mode": _OPT_STR, "top_k": _OPT_INT,
                       "min_score": _OPT_FLOAT}, frozenset({"kbs", "mode", "top_k", "min_score"}),
                      lambda e, a: _vars(e.search(SYSTEM_ACTOR, a["query"], a.get("kbs"), mode=a.get("mode"),
                                                  top_k=a.get("top_k"), min_score=a.get("min_score")))),
    "doctor": Command({"repair": _BOOL}, frozenset({"repair"}),
                      lambda e, a: _vars(e.doctor(SYSTEM_ACTOR, repair=a.get("repair", False)))),
    "settings_masked": Command({}, frozenset(), lambda e, a: e.settings_masked()),
    "save_settings": Command({"patch": _DICT}, frozenset(), lambda e, a: _save_settings(e, a["patch"])),
    "ask": Command({"question": _STR, "kbs": _OPT_STR_LIST, "mode": _OPT_STR, "chat_id": _OPT_STR,
                    "temporary": _BOOL}, frozenset({"kbs", "mode", "chat_id", "temporary"}),
                   lambda e, a: _vars(e.ask(SYSTEM_ACTOR, a["question"], kbs=a.get("kbs"), mode=a.get("mode"),
                                            chat_id=a.get("chat_id"), temporary=a.get("temporary", False)))),
    "compare": Command({"question": _STR, "kbs": _OPT_STR_LIST}, frozenset({"kbs"}),
                       lambda e, a: _vars(e.compare(SYSTEM_ACTOR, a["question"], a.get("kbs")))),
}

# Fields a client may send that are dropped unread: the server decides who runs the command.
IGNORED_FIELDS = frozenset({"actor"})


def _type_ok(value: Any, accepted: tuple) -> bool:
    for kind in accepted:
        if kind == "list[str]":
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return True
        elif kind is int or kind is float:
            if isinstance(value, kind) and not isinstance(value, bool):
                return True
        elif isinstance(value, kind):
            return True
    return False


def validate_request(message: Any) -> tuple[str, dict]:
    """(command, args) from a decoded request; raises InvalidInput for anything off-schema."""
    if not isinstance(message, dict):
        raise InvalidInput("a hand-off request must be a JSON object")
    extra = set(message) - {"command", "args"} - IGNORED_FIELDS
    if extra:
        raise InvalidInput(f"unknown request field(s): {', '.join(sorted(extra))}")
    name, args = message.get("command"), message.get("args", {})
    if not isinstance(name, str) or name not in COMMANDS:
        raise InvalidInput(f"unknown hand-off command {name!r}" if isinstance(name, str) else "no hand-off command")
    if not isinstance(args, dict):
        raise InvalidInput("hand-off arguments must be a JSON object")
    args = {k: v for k, v in args.items() if k not in IGNORED_FIELDS}
    spec = COMMANDS[name]
    unknown = set(args) - set(spec.params)
    if unknown:
        raise InvalidInput(f"'{name}' takes no argument(s) {', '.join(sorted(unknown))}")
    missing = set(spec.params) - spec.optional - set(args)
    if missing:
        raise InvalidInput(f"'{name}' needs {', '.join(sorted(missing))}")
    for key, value in args.items():
        if not _type_ok(value, spec.params[key]):
            raise InvalidInput(f"'{name}': argument {key} has the wrong type")
    return name, args


def error_payload(exc: CoreError) -> dict:
    return {"kind": type(exc).__name__, "message": exc.message}


def _core_error_classes() -> dict[str, type[CoreError]]:
    found: dict[str, type[CoreError]] = {}
    todo = [CoreError]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls
        todo.extend(cls.__subclasses__())
    return found


def error_from_payload(payload: Any) -> CoreError:
    """The typed error a reply describes (exit codes survive); never anything but a CoreError."""
    if not isinstance(payload, dict) or not isinstance(payload.get("message"), str):
        return errors_mod.StoreError("the dashboard process sent a malformed error")
    cls = _core_error_classes().get(str(payload.get("kind")), CoreError)
    try:
        return cls(payload["message"])
    except TypeError:  # a subclass with another constructor
        return CoreError(payload["message"])


# ---------------------------------------------------------------- results back into types (client)

def _kb_row(data: dict):
    from core.db.models import KnowledgeBase

    return KnowledgeBase.model_validate(data)


def _file_row(data: dict):
    from core.db.models import FileRecord

    return FileRecord.model_validate(data)


def _ingest_result(data: dict):
    from core.ingest.service import IngestResult

    return IngestResult(**data)


def _search_result(data: dict):
    from core.retrieval.search import SearchHit, SearchResult

    return SearchResult(**{**data, "hits": [SearchHit(**h) for h in data["hits"]],
                           "below_threshold": [SearchHit(**h) for h in data.get("below_threshold", [])]})


def _answer(data: dict):
    from core.answering.types import Answer, AnswerEvent, Citation

    return Answer(**{**data, "citations": [Citation(**c) for c in data.get("citations", [])],
                     "events": [AnswerEvent(**ev) for ev in data.get("events", [])]})


def _comparison(data: dict):
    from core.answering.types import Comparison

    return Comparison(**{**data, "normal": _answer(data["normal"]), "strict": _answer(data["strict"])})


def _reindex_result(data: dict):
    from core.ingest.reindex import ReindexResult

    return ReindexResult(**data)


def _doctor_report(data: dict):
    from core.doctor import DoctorReport

    return DoctorReport(**data)


DECODERS: dict[str, Callable[[Any], Any]] = {
    "create_kb": _kb_row, "rename_kb": _kb_row, "list_kbs": lambda rows: [_kb_row(r) for r in rows],
    "list_files": lambda rows: [_file_row(r) for r in rows],
    "ingest_paths": lambda rows: [_ingest_result(r) for r in rows],
    "delete_files": lambda rows: [_ingest_result(r) for r in rows],
    "search": _search_result, "ask": _answer, "compare": _comparison,
    "reindex": _reindex_result, "doctor": _doctor_report,
}
