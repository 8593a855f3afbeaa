"""``python -m core assistants list|show|create|update|delete``: assistants, named presets of knowledge
bases, mode, thresholds, top-k, prompt, refusal text and metadata filter (core/assistants/). The CLI acts as the
local admin. ``python -m core ask --assistant NAME QUESTION`` answers with one (answer_commands.py).
When the dashboard holds the embedded store, the command runs there (hand-off)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from core.cli.context import emit, engine_for
from core.cli.where import add_where_argument, from_cli
from core.errors import InvalidInput
from core.types import SYSTEM_ACTOR

TUNING = ("mode", "strict_min_similarity", "normal_min_similarity", "top_k", "refusal_text", "description",
          "visibility")


def _line(a: dict) -> str:
    kbs = ", ".join(a["kbs"]) or "every readable knowledge base"
    hidden = f" (+{a['hidden_kbs']} not readable)" if a["hidden_kbs"] else ""
    return f"{a['name']:<24} {a['mode']:<7} {a['visibility']:<8} {a['owner']:<12} {kbs}{hidden}"


def _details(a: dict) -> str:
    rows = [("name", a["name"]), ("id", a["id"]), ("owner", a["owner"]), ("visibility", a["visibility"]),
            ("shared with", ", ".join(a["shared_with"]) or "-"), ("mode", a["mode"]),
            ("knowledge bases", ", ".join(a["kbs"]) or "every readable knowledge base"),
            ("strict min similarity", a["strict_min_similarity"]), ("normal min similarity", a["normal_min_similarity"]),
            ("top-k", a["top_k"]), ("refusal text", a["refusal_text"] or "(the global no-hit reply)"),
            ("prompt", a["prompt"] or "(the global template)"), ("description", a["description"] or "-"),
            ("filter", json.dumps(a["where"], ensure_ascii=False) if a["where"] else "-")]
    return "\n".join(f"{k:<22} {'(global)' if v is None else v}" for k, v in rows)


def _prompt(args: argparse.Namespace) -> str | None:
    if getattr(args, "prompt_file", None):
        path = Path(args.prompt_file)
        if not path.is_file():
            raise InvalidInput(f"no such file: {path}")
        return path.read_text(encoding="utf-8")
    return args.prompt


def _fields(args: argparse.Namespace) -> dict:
    fields = {k: getattr(args, k) for k in TUNING if getattr(args, k) is not None}
    if _prompt(args) is not None:
        fields["prompt"] = _prompt(args)
    if args.kb is not None:
        fields["kbs"] = [] if args.kb == [""] else args.kb
    if args.share is not None:
        fields["shared_with"] = [u.strip() for u in args.share.split(",") if u.strip()]
    if args.where:
        fields["where"] = from_cli(args.where)
    return fields


def cmd_assistants(args: argparse.Namespace) -> int:
    with engine_for(args) as engine:
        command = args.assistants_command
        if command == "list":
            rows = [a.model_dump() for a in engine.list_assistants(SYSTEM_ACTOR)]
            emit(args, rows, lambda rs: "\n".join(map(_line, rs)) or "no assistants")
            return 0
        if command == "delete":
            engine.delete_assistant(SYSTEM_ACTOR, args.name)
            emit(args, {"deleted": args.name}, lambda r: f"deleted assistant {r['deleted']}")
            return 0
        if command == "show":
            view = engine.get_assistant(SYSTEM_ACTOR, args.name)
        elif command == "create":
            fields = _fields(args)
            view = engine.create_assistant(SYSTEM_ACTOR, args.name, fields.pop("kbs", []), **fields)
        else:  # update
            fields = _fields(args)
            if args.rename:
                fields["name"] = args.rename
            if args.clear:
                fields["clear"] = args.clear
            view = engine.update_assistant(SYSTEM_ACTOR, args.name, **fields)
        emit(args, view.model_dump(), _details)
    return 0


def _preset_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kb", action="append", help="a knowledge base it answers from (repeatable; "
                                                 "none: every one the asker may read; --kb '' clears them)")
    p.add_argument("--mode", choices=["strict", "normal"], help="strict (default when created) or normal; the "
                                                                "global strict policy still wins for plain users")
    p.add_argument("--strict-min-similarity", type=float, help="strict mode's threshold (0-1)")
    p.add_argument("--normal-min-similarity", type=float, help="normal mode's threshold (0-1)")
    p.add_argument("--top-k", type=int, help="passages used per answer (1-50)")
    prompt = p.add_mutually_exclusive_group()
    prompt.add_argument("--prompt", help="its RAG template: must contain {{CONTEXT}}")
    prompt.add_argument("--prompt-file", help="read the template from this UTF-8 file")
    p.add_argument("--refusal-text", help="the reply when nothing in its knowledge bases answers (strict)")
    p.add_argument("--description")
    p.add_argument("--visibility", choices=["private", "shared", "public"])
    p.add_argument("--share", help="comma-separated user names it is shared with ('' clears)")
    add_where_argument(p)  # its metadata filter on every question (replaces the one it had)


def register(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser("assistants", help="assistants: named presets of knowledge bases, mode, thresholds, prompt")
    a.set_defaults(handler=cmd_assistants)
    s = a.add_subparsers(dest="assistants_command", required=True)
    s.add_parser("list", help="the assistants (as the local admin: all of them)")
    for name, help_text in (("show", "one assistant's preset"), ("delete", "delete an assistant")):
        s.add_parser(name, help=help_text).add_argument("name", help="the assistant's name or id")
    create = s.add_parser("create", help="create an assistant")
    create.add_argument("name")
    _preset_options(create)
    update = s.add_parser("update", help="change an assistant (options given change, others stay)")
    update.add_argument("name", help="the assistant's name or id")
    update.add_argument("--rename", help="its new name")
    update.add_argument("--clear", action="append", choices=["strict_min_similarity", "normal_min_similarity",
                                                             "top_k", "prompt", "refusal_text", "where"],
                        help="put this tuning back to the global setting (repeatable)")
    _preset_options(update)
