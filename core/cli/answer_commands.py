"""``ask`` and ``compare``: answer from the command line, in the mode in force or a chosen one.

``ask`` stores nothing (a temporary chat) unless ``--chat ID`` continues a saved chat.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from core.cli.main import emit
from core.errors import InvalidInput
from core.types import SYSTEM_ACTOR
from core.answering.questions import parse_questions



def _answer_payload(answer) -> dict:
    d = asdict(answer)
    keep = ("question", "text", "mode", "hit", "llm_called", "from_kb", "sources", "flagged", "error", "notices", "citations",
            "events", "timings_ms", "retrieved", "chat_id", "message_id")
    return {k: d[k] for k in keep}


def _human_answer(p: dict) -> str:
    lines = [f"[{p['mode']}] hit={p['hit']} llm_called={p['llm_called']} ({p['timings_ms'].get('total_ms', 0):.0f} ms)"]
    lines.append(p["text"] if not p["error"] else f"error: {p['error']}")
    lines += [f"ⓘ {n}" for n in p["notices"]]
    for c in p["citations"]:
        where = f" ({c['location']})" if c["location"] else ""
        lines.append(f"  [{c['n']}] {c['source_name']}{where} score {c['score']:.3f}")
    return "\n".join(lines)


def cmd_ask(args: argparse.Namespace) -> int:
    from core.cli.commands import engine_for

    with engine_for(args) as engine:
        answer = engine.ask(SYSTEM_ACTOR, args.question, kbs=args.kb or None, mode=args.mode,
                            chat_id=args.chat, temporary=args.chat is None, web=args.web)
    emit(args, _answer_payload(answer), _human_answer)
    return 1 if answer.error else 0


def read_questions(path: Path) -> list[str]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    questions = parse_questions(path.name, data)
    if not questions:
        raise InvalidInput(f"no questions in {path}")
    return questions


def cmd_compare(args: argparse.Namespace) -> int:
    from core.cli.commands import engine_for

    if bool(args.batch) == bool(args.question):
        raise InvalidInput("give either a QUESTION or --batch FILE")
    questions = read_questions(Path(args.batch)) if args.batch else [args.question]
    with engine_for(args) as engine:
        # compare() one question at a time: it is what the dashboard hand-off allows.
        results = [engine.compare(SYSTEM_ACTOR, q, kbs=args.kb or None, web=args.web) for q in questions]
    rows = [{"question": c.question, "normal": _answer_payload(c.normal), "strict": _answer_payload(c.strict)} for c in results]

    def human(rs: list[dict]) -> str:
        blocks = []
        for r in rs:
            blocks.append(f"Q: {r['question']}\n--- normal\n{_human_answer(r['normal'])}\n--- strict\n{_human_answer(r['strict'])}")
        return "\n\n".join(blocks)

    emit(args, rows if args.batch else rows[0], human if args.batch else (lambda r: human([r])))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    ask = sub.add_parser("ask", help="answer a question from the knowledge bases (normal or strict mode)")
    ask.add_argument("--kb", action="append", help="knowledge base (repeatable; default: all you can read)")
    ask.add_argument("--mode", choices=["normal", "strict"], help="default: the mode set in the settings")
    ask.add_argument("--chat", help="continue this saved chat (default: store nothing)")
    ask.add_argument("--web", action="store_true", help="search the web too (normal mode; needs web_search.enable_web_search)")
    ask.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")
    ask.add_argument("question")
    ask.set_defaults(handler=cmd_ask)

    cmp = sub.add_parser("compare", help="answer a question in normal and in strict mode, side by side")
    cmp.add_argument("--kb", action="append", help="knowledge base (repeatable)")
    cmp.add_argument("--batch", help="file of questions: CSV (question column), JSONL, or one per line")
    cmp.add_argument("--web", action="store_true", help="let the normal side search the web (strict never does)")
    cmp.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")
    cmp.add_argument("question", nargs="?")
    cmp.set_defaults(handler=cmd_compare)
