"""``python -m core curated list|add|delete|import|export --kb KB``: approved answers of a
knowledge base. The CLI acts as the local admin, so the approver recorded is the local admin
(``add --approved-by NAME`` records another name)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from core.cli.context import emit, engine_for
from core.errors import InvalidInput
from core.types import SYSTEM_ACTOR


def _line(r: dict) -> str:
    return f"{r['id']}  {r['approved_by']} {r['approved_at'][:10]}  {r['question']}  →  {r['answer'][:60]}"


def cmd_curated(args: argparse.Namespace) -> int:
    with engine_for(args) as engine:
        if args.curated_command == "list":
            rows = [asdict(e) for e in engine.curated_answers(SYSTEM_ACTOR, args.kb)]
            emit(args, rows, lambda rs: "\n".join(map(_line, rs)) or "no curated answers")
        elif args.curated_command == "add":
            entry = engine.add_curated(SYSTEM_ACTOR, args.kb, args.question, args.answer,
                                       approved_by=args.approved_by)
            emit(args, asdict(entry), lambda r: f"added curated answer {r['id']}")
        elif args.curated_command == "delete":
            for entry_id in args.ids:
                engine.delete_curated(SYSTEM_ACTOR, entry_id)
            emit(args, {"deleted": args.ids}, lambda r: f"deleted {len(r['deleted'])} curated answer(s)")
        elif args.curated_command == "import":
            path = Path(args.file)
            if not path.is_file():
                raise InvalidInput(f"no such file: {path}")
            report = engine.import_curated_csv(SYSTEM_ACTOR, args.kb, path.read_bytes())
            emit(args, asdict(report), lambda r: "\n".join(
                [f"added {r['added']}, updated {r['updated']}, {len(r['errors'])} bad row(s)"]
                + [f"line {e['line']}: {e['message']}" for e in r["errors"]]))
            return 1 if report.errors else 0
        elif args.curated_command == "export":
            text = engine.export_curated_csv(SYSTEM_ACTOR, args.kb)
            if args.output:
                Path(args.output).write_text(text, encoding="utf-8")
                emit(args, {"written": args.output}, lambda r: f"wrote {r['written']}")
            elif args.json:
                emit(args, {"csv": text})
            else:
                sys.stdout.write(text)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    cu = sub.add_parser("curated", help="approved question/answer pairs of a knowledge base (answered verbatim)")
    cu.set_defaults(handler=cmd_curated)
    cs = cu.add_subparsers(dest="curated_command", required=True)
    for name in ("list", "add", "delete", "import", "export"):
        p = cs.add_parser(name)
        p.add_argument("--kb", required=True, help="knowledge base name or id")
        if name == "add":
            p.add_argument("--question", required=True)
            p.add_argument("--answer", required=True)
            p.add_argument("--approved-by", help="the approver's name (default: the local admin)")
        elif name == "delete":
            p.add_argument("ids", nargs="+", help="curated answer ids (curated list)")
        elif name == "import":
            p.add_argument("file", help="CSV with columns question,answer[,approved_by,approved_at]")
        elif name == "export":
            p.add_argument("-o", "--output", help="write the CSV here (default: print it)")
