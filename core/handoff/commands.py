"""The hand-off's interface: the commands the CLI sends, their argument schema, and how each
result is written as JSON and read back into the types the CLI prints.

Nothing else crosses the socket: no objects, no Actor (the server runs every command as the
local admin — except ``api_call``, which runs as the user of the API token it carries, checked
here by the engine; see ``core/api/registry.py``), no callables. A request is ``{"command": name, "args": {...}}``; an argument
that the schema does not name, or whose type is wrong, refuses the whole request.
"""

from __future__ import annotations

import importlib
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


def _rows(rows) -> list[dict]:
    return [r.model_dump(mode="json") for r in rows]


def _api_call(engine, args: dict):
    from core.api.registry import invoke  # lazy: the API's operations import most of the engine

    return invoke(engine, args["token"], args["op"], args["input"], client=args.get("client", ""))


def _ingest_paths_queued(engine, kb: str, paths: list[str]) -> list:
    """A CLI ingest handed to the dashboard runs on its job queue (progress and Cancel on the
    dashboard, nothing long on the hand-off's own thread); the CLI waits for the results."""
    from core.ingest.paths import ingest_paths

    engine.get_kb(SYSTEM_ACTOR, kb)  # unknown: refused before any file is read
    return ingest_paths(lambda uploads: engine.submit_ingest(SYSTEM_ACTOR, kb, uploads).result(), paths,
                        engine.settings().parsing.max_upload_mb)


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
                            lambda e, a: [_vars(r) for r in _ingest_paths_queued(e, a["kb"], a["paths"])]),
    "list_files": Command({"kb": _OPT_STR, "status": _OPT_STR}, frozenset({"kb", "status"}),
                          lambda e, a: [f.model_dump(mode="json") for f in
                                        e.list_files(SYSTEM_ACTOR, a.get("kb"), a.get("status"))]),
    "delete_files": Command({"file_ids": _STR_LIST}, frozenset(),
                            lambda e, a: [_vars(r) for r in e.delete_files(SYSTEM_ACTOR, a["file_ids"])]),
    "reindex": Command({"kb": _STR}, frozenset(), lambda e, a: _vars(e.submit_reindex(SYSTEM_ACTOR, a["kb"]).result())),
    "search": Command({"query": _STR, "kbs": _OPT_STR_LIST, "mode": _OPT_STR, "top_k": _OPT_INT,
                       "min_score": _OPT_FLOAT}, frozenset({"kbs", "mode", "top_k", "min_score"}),
                      lambda e, a: _vars(e.search(SYSTEM_ACTOR, a["query"], a.get("kbs"), mode=a.get("mode"),
                                                  top_k=a.get("top_k"), min_score=a.get("min_score")))),
    "doctor": Command({"repair": _BOOL}, frozenset({"repair"}),
                      lambda e, a: _vars(e.submit_repair(SYSTEM_ACTOR).result() if a.get("repair")
                                         else e.doctor(SYSTEM_ACTOR))),
    "settings_masked": Command({}, frozenset(), lambda e, a: e.settings_masked()),
    "save_settings": Command({"patch": _DICT}, frozenset(), lambda e, a: _save_settings(e, a["patch"])),
    # web: the normal side may search the web; strict answering never does (the engine decides)
    "ask": Command({"question": _STR, "kbs": _OPT_STR_LIST, "mode": _OPT_STR, "chat_id": _OPT_STR,
                    "temporary": _BOOL, "web": _BOOL}, frozenset({"kbs", "mode", "chat_id", "temporary", "web"}),
                   lambda e, a: _vars(e.ask(SYSTEM_ACTOR, a["question"], kbs=a.get("kbs"), mode=a.get("mode"),
                                            chat_id=a.get("chat_id"), temporary=a.get("temporary", False),
                                            web=a.get("web", False)))),
    "compare": Command({"question": _STR, "kbs": _OPT_STR_LIST, "web": _BOOL}, frozenset({"kbs", "web"}),
                       lambda e, a: _vars(e.compare(SYSTEM_ACTOR, a["question"], a.get("kbs"),
                                                    web=a.get("web", False)))),
    # Google Drive and synced sources. The Drive connection used is the local admin's own (the
    # CLI's local operator), exactly as when the CLI opens the store itself.
    "gdrive_status": Command({}, frozenset(), lambda e, a: e.gdrive_status(SYSTEM_ACTOR)),
    "gdrive_connect_refresh_token": Command(
        {"refresh_token": _STR}, frozenset(),
        lambda e, a: e.gdrive_connect_refresh_token(SYSTEM_ACTOR, a["refresh_token"])),
    "gdrive_list": Command({"folder_id": _OPT_STR, "query": _STR}, frozenset({"folder_id", "query"}),
                           lambda e, a: e.gdrive_list(SYSTEM_ACTOR, a.get("folder_id"), a.get("query", ""))),
    "gdrive_import": Command({"kb": _STR, "ids": _STR_LIST, "watch": _BOOL}, frozenset({"watch"}),
                             lambda e, a: _vars(e.submit_gdrive_import(SYSTEM_ACTOR, a["kb"], a["ids"],
                                                                       watch=a.get("watch", False)).result())),
    "gdrive_sync": Command({"kb": _OPT_STR}, frozenset({"kb"}),
                           lambda e, a: [_vars(r) for r in e.gdrive_sync(SYSTEM_ACTOR, a.get("kb"))]),
    # every due source, each as its owner (what `gdrive sync --due` runs in-process too)
    "run_scheduled_syncs": Command({}, frozenset(), lambda e, a: [_vars(r) for r in e.run_scheduled_syncs()]),
    "gdrive_disconnect": Command({}, frozenset(), lambda e, a: e.gdrive_disconnect(SYSTEM_ACTOR)),
    "sources": Command({"kind": _OPT_STR, "kb": _OPT_STR}, frozenset({"kind", "kb"}),
                       lambda e, a: _rows(e.sources(SYSTEM_ACTOR, kind=a.get("kind"), kb=a.get("kb")))),
    "watch_web_pages": Command({"kb": _STR, "urls": _STR_LIST, "watch": _BOOL}, frozenset({"watch"}),
                               lambda e, a: _vars(e.watch_web_pages(SYSTEM_ACTOR, a["kb"], a["urls"],
                                                                    watch=a.get("watch", True)))),
    "sync_source": Command({"source_id": _STR}, frozenset(),
                           lambda e, a: _vars(e.submit_sync_source(SYSTEM_ACTOR, a["source_id"]).result())),
    # The HTTP API's every operation (core/api/registry.py) as the token's user, never as the admin:
    # the token is verified here, next to the engine; uploads come as files the API staged.
    "api_call": Command({"op": _STR, "input": _DICT, "token": _STR, "client": _STR}, frozenset({"client"}), _api_call),
    "sync_logs": Command({"source_id": _OPT_STR, "limit": _OPT_INT}, frozenset({"source_id", "limit"}),
                         lambda e, a: _rows(e.sync_logs(SYSTEM_ACTOR, a.get("source_id"),
                                                        limit=20 if a.get("limit") is None else a["limit"]))),
    # curated answers (core/curated/): approved by the local admin, as when the CLI opens the store
    "curated_list": Command({"kb": _STR}, frozenset(), lambda e, a: [_vars(r) for r in e.curated_answers(SYSTEM_ACTOR, a["kb"])]),
    "curated_add": Command({"kb": _STR, "question": _STR, "answer": _STR, "approved_by": _OPT_STR},
                           frozenset({"approved_by"}),
                           lambda e, a: _vars(e.add_curated(SYSTEM_ACTOR, a["kb"], a["question"], a["answer"],
                                                            approved_by=a.get("approved_by")))),
    "curated_delete": Command({"entry_id": _STR}, frozenset(), lambda e, a: e.delete_curated(SYSTEM_ACTOR, a["entry_id"])),
    "curated_import": Command({"kb": _STR, "text": _STR}, frozenset(),
                              lambda e, a: _vars(e.import_curated_csv(SYSTEM_ACTOR, a["kb"], a["text"]))),
    "curated_export": Command({"kb": _STR}, frozenset(), lambda e, a: e.export_curated_csv(SYSTEM_ACTOR, a["kb"])),
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


# Modules that define CoreErrors of their own: imported so a reply naming one finds its class
# (and its exit code) even when the CLI has not imported that module yet.
_ERROR_MODULES = ("core.gdrive.errors", "core.sources.base", "core.websearch.base", "core.secrets.box", "core.accounts.signin_guard",
                  "core.accounts.api_tokens", "core.sources.lease", "core.storage.data_folder", "core.embeddings.errors",
                  "core.parsers.url")


def _core_error_classes() -> dict[str, type[CoreError]]:
    for module in _ERROR_MODULES:
        importlib.import_module(module)
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
    for candidate in cls.__mro__:  # a subclass with another constructor: its nearest base that takes a message
        if isinstance(candidate, type) and issubclass(candidate, CoreError):
            try:
                return candidate(payload["message"])
            except TypeError:
                continue
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


def _sync_report(data: dict):
    from core.sources.sync import ItemResult, SyncReport

    return SyncReport(**{**data, "results": [ItemResult(**r) for r in data["results"]]})


def _source_rows(rows: list) -> list:
    from core.sources.models import SyncedSource

    return [SyncedSource.model_validate(r) for r in rows]


def _sync_log_rows(rows: list) -> list:
    from core.sources.models import SyncLog

    return [SyncLog.model_validate(r) for r in rows]


def _curated_entry(data: dict):
    from core.curated.store import CuratedEntry

    return CuratedEntry(**data)


def _curated_import(data: dict):
    from core.curated.csv_io import ImportReport, RowError

    return ImportReport(**{**data, "errors": [RowError(**e) for e in data["errors"]]})


DECODERS: dict[str, Callable[[Any], Any]] = {
    "curated_list": lambda rows: [_curated_entry(r) for r in rows], "curated_add": _curated_entry,
    "curated_import": _curated_import,
    "create_kb": _kb_row, "rename_kb": _kb_row, "list_kbs": lambda rows: [_kb_row(r) for r in rows],
    "list_files": lambda rows: [_file_row(r) for r in rows],
    "ingest_paths": lambda rows: [_ingest_result(r) for r in rows],
    "delete_files": lambda rows: [_ingest_result(r) for r in rows],
    "search": _search_result, "ask": _answer, "compare": _comparison,
    "reindex": _reindex_result, "doctor": _doctor_report,
    "gdrive_import": _sync_report, "watch_web_pages": _sync_report, "sync_source": _sync_report,
    "gdrive_sync": lambda rows: [_sync_report(r) for r in rows],
    "run_scheduled_syncs": lambda rows: [_sync_report(r) for r in rows],
    "sources": _source_rows, "sync_logs": _sync_log_rows,
}
