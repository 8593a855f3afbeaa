"""``python -m core chunks list|edit|disable|enable|add|history FILE_ID ...``: a file's chunks edited
by hand (core/chunk_edits/). The CLI acts as the local admin; the history names it as such. When the
dashboard holds the embedded store, the command runs there (hand-off)."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.context import emit, engine_for
from core.errors import InvalidInput
from core.types import SYSTEM_ACTOR


def _flags(c: dict) -> str:
    marks = [c["state"]] if c["state"] != "original" else []
    if c["disabled"]:
        marks.append("disabled")
    return f" [{', '.join(marks)}]" if marks else ""


def _chunk_line(c: dict) -> str:
    keywords = f"  keywords: {', '.join(c['keywords'])}" if c["keywords"] else ""
    text = " ".join(c["text"].split())
    return f"#{c['chunk_index']}{_flags(c)}  {text[:100]}{'…' if len(text) > 100 else ''}{keywords}"


def _listing(r: dict) -> str:
    head = f"{r['file_name']} ({r['status']}, {len(r['chunks'])} chunks)"
    notice = [f"note: {r['notice']}"] if r["notice"] else []
    return "\n".join([head, *notice, *map(_chunk_line, r["chunks"])])


def _history_line(h: dict) -> str:
    note = f" — {h['note']}" if h["note"] else ""
    return f"{str(h['at'])[:19]}  {h['actor_name']}  {h['action']} #{h['chunk_index']}{note}"


def _text(args: argparse.Namespace) -> str | None:
    if getattr(args, "text_file", None):
        path = Path(args.text_file)
        if not path.is_file():
            raise InvalidInput(f"no such file: {path}")
        return path.read_text(encoding="utf-8")
    return args.text


def _keywords(args: argparse.Namespace) -> list[str] | None:
    if args.keywords is None:
        return None
    return [k.strip() for k in args.keywords.split(",") if k.strip()]


def cmd_chunks(args: argparse.Namespace) -> int:
    with engine_for(args) as engine:
        command = args.chunks_command
        if command == "list":
            emit(args, engine.list_chunks(SYSTEM_ACTOR, args.file_id).model_dump(mode="json"), _listing)
            return 0
        if command == "history":
            rows = [h.model_dump(mode="json") for h in engine.chunk_history(SYSTEM_ACTOR, args.file_id)]
            emit(args, rows, lambda rs: "\n".join(map(_history_line, rs)) or "no chunk edits")
            return 0
        if command == "edit":
            view = engine.edit_chunk(SYSTEM_ACTOR, args.file_id, args.index, text=_text(args), keywords=_keywords(args))
        elif command == "disable":
            view = engine.disable_chunk(SYSTEM_ACTOR, args.file_id, args.index)
        elif command == "enable":
            view = engine.enable_chunk(SYSTEM_ACTOR, args.file_id, args.index)
        else:  # add
            text = _text(args)
            if text is None:
                raise InvalidInput("give the new chunk's text: --text TEXT or --text-file PATH")
            view = engine.add_chunk(SYSTEM_ACTOR, args.file_id, text, keywords=_keywords(args))
        emit(args, view.model_dump(mode="json"), _chunk_line)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    ch = sub.add_parser("chunks", help="a file's chunks: list, edit (text, keywords), disable, enable, add, history")
    ch.set_defaults(handler=cmd_chunks)
    cs = ch.add_subparsers(dest="chunks_command", required=True)
    for name, help_text in (("list", "the file's chunks in order, edited, added and disabled ones marked"),
                            ("edit", "replace a chunk's text and/or keywords (re-embedded at once)"),
                            ("disable", "keep a chunk out of every search and answer"),
                            ("enable", "bring a disabled chunk back"),
                            ("add", "add a chunk by hand to the file"),
                            ("history", "who changed which chunk, when, before and after")):
        p = cs.add_parser(name, help=help_text)
        p.add_argument("file_id", help="the file's id (python -m core files list --kb KB)")
        if name in ("edit", "disable", "enable"):
            p.add_argument("index", type=int, help="the chunk's index (chunks list)")
        if name in ("edit", "add"):
            text = p.add_mutually_exclusive_group()
            text.add_argument("--text", help="the chunk's new text")
            text.add_argument("--text-file", help="read the new text from this UTF-8 file")
            p.add_argument("--keywords", help="comma-separated keywords the lexical (BM25) search sees; '' clears them")
