"""``python -m core demo``: load the bundled demo knowledge base; ``demo questions`` prints
the demo question set (JSONL, ready for ``compare --batch`` or the A/B page)."""

from __future__ import annotations

import argparse
import sys

from core.cli.context import emit, engine_for


def cmd_demo(args: argparse.Namespace) -> int:
    from core.demo import demo_questions_bytes, load_demo
    from core.types import SYSTEM_ACTOR

    if args.demo_command == "questions":
        sys.stdout.write(demo_questions_bytes().decode("utf-8"))
        return 0
    with engine_for(args) as engine:
        result = load_demo(engine, SYSTEM_ACTOR)
    data = {"kb": result.kb_name, "kb_id": result.kb_id, "created": result.created,
            "files": [{"name": r.name, "status": r.status, "chunks": r.chunks, "error": r.error} for r in result.files]}

    def human(d: dict) -> str:
        head = f"{'created' if d['created'] else 'found'} knowledge base '{d['kb']}'"
        rows = [f"  {f['name']}: {f['status']}" + (f" ({f['chunks']} chunks)" if f["chunks"] else "")
                + (f" — {f['error']}" if f["error"] else "") for f in d["files"]]
        tip = "try: python -m core demo questions > demo.jsonl && python -m core compare --batch demo.jsonl"
        return "\n".join([head, *rows, tip])

    emit(args, data, human)
    return 0 if result.ok else 1


def register(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser("demo", help="load the bundled bilingual demo knowledge base (and its A/B question set)")
    demo.set_defaults(handler=cmd_demo, demo_command="load")
    ds = demo.add_subparsers(dest="demo_command")
    ds.add_parser("load", help="create the demo knowledge base and index the two handbooks (the default)")
    ds.add_parser("questions", help="print the demo question set as JSONL")
