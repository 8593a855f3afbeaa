"""``ask`` and ``compare``: answer from the command line, in the mode in force or a chosen one.

``ask`` stores nothing (a temporary chat) unless ``--chat ID`` continues a saved chat.
``compare --batch`` scores expected answers with ``core/answering/scoring.py`` and summarises
like the A/B page (``core/answering/report.py``); ``--report FILE.html`` writes the page's report.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from core.answering.questions import BatchItem, parse_batch
from core.answering.report import ModeSummary, comparison_rows, html_report, summarise
from core.cli.context import emit, engine_for
from core.cli.where import add_where_argument, from_cli
from core.errors import InvalidInput
from core.names import printable
from core.types import SYSTEM_ACTOR


def _answer_payload(answer) -> dict:
    d = asdict(answer)
    keep = ("question", "text", "mode", "hit", "weak_match", "llm_called", "from_kb", "sources", "flagged", "error", "notices", "citations",
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
    if args.assistant and (args.kb or args.mode):
        raise InvalidInput("--assistant sets the knowledge bases and the mode: leave out --kb and --mode")
    with engine_for(args) as engine:
        if args.assistant:  # its preset (core/assistants/), its own metadata filter included
            if args.where:
                raise InvalidInput("--where cannot be combined with --assistant: the assistant's own filter applies "
                                   "(python -m core assistants update NAME --where ...)")
            answer = engine.ask_assistant(SYSTEM_ACTOR, args.assistant, args.question, chat_id=args.chat,
                                          temporary=args.chat is None, web=args.web)
        else:
            answer = engine.ask(SYSTEM_ACTOR, args.question, kbs=args.kb or None, mode=args.mode,
                                chat_id=args.chat, temporary=args.chat is None, web=args.web, where=from_cli(args.where))
    emit(args, _answer_payload(answer), _human_answer)
    return 1 if answer.error else 0


def read_items(path: Path) -> list[BatchItem]:
    """The batch's questions with their expected answers (CSV, JSONL or text; see questions.py)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    items = parse_batch(path.name, data)
    if not items:
        raise InvalidInput(f"no questions in {path}")
    return items


def summary_lines(summary: list[ModeSummary], rows: list[dict]) -> list[str]:
    """The A/B page's headline counts, as text."""
    lines = []
    for s in summary:
        scored = f"as expected {s.as_expected}/{s.scored} (correct {s.correct}, wrong {s.wrong}), " if s.scored else ""
        lines.append(f"{s.mode}: {scored}refusals {s.refusals}/{s.questions}, hits {s.hits}/{s.questions}, "
                     f"model calls {s.model_calls}, mean {s.mean_ms:.0f} ms")
    lines.append(f"modes differ: {sum(bool(r['modes_differ']) for r in rows)} of {len(rows)}")
    return lines


def _scores(row: dict) -> dict:
    return {mode: {"outcome": row[f"{mode}_outcome"] or None, "as_expected": row[f"{mode}_as_expected"],
                   "verdict": row[f"{mode}_verdict"]} for mode in ("normal", "strict")}


def cmd_compare(args: argparse.Namespace) -> int:
    if bool(args.batch) == bool(args.question):
        raise InvalidInput("give either a QUESTION or --batch FILE")
    items = read_items(Path(args.batch)) if args.batch else [BatchItem(args.question)]
    report = Path(args.report) if args.report else None
    if report is not None and not report.parent.is_dir():
        raise InvalidInput(f"cannot write the report: {report.parent} is not a folder")
    with engine_for(args) as engine:
        # compare() one question at a time: it is what the dashboard hand-off allows.
        where = from_cli(args.where)
        results = [engine.compare(SYSTEM_ACTOR, i.question, kbs=args.kb or None, web=args.web, where=where)
                   for i in items]
    table = comparison_rows(results, [i.expected for i in items])
    rows = [{"question": c.question, "normal": _answer_payload(c.normal), "strict": _answer_payload(c.strict),
             "expected": i.expected, "scores": _scores(t), "modes_differ": t["modes_differ"]}
            for c, i, t in zip(results, items, table)]
    summary = summary_lines(summarise(table), table)
    if report is not None:
        try:
            report.write_text(html_report(table), encoding="utf-8")
        except OSError as exc:
            raise InvalidInput(f"cannot write the report {report}: {exc.strerror}") from None
        summary.append(f"report: {report}")

    def human(rs: list[dict]) -> str:
        blocks = []
        for r in rs:
            expected = f" (expected: {r['expected']})" if r["expected"] else ""
            blocks.append(f"Q: {r['question']}{expected}\n--- normal\n{_human_answer(r['normal'])}\n--- strict\n"
                          f"{_human_answer(r['strict'])}")
        return "\n\n".join(blocks + (["\n".join(summary)] if args.batch else []))

    emit(args, rows if args.batch else rows[0], human if args.batch else (lambda r: human([r])))
    if args.json and args.batch:  # stdout keeps the JSON rows; the summary goes beside them
        print(printable("\n".join(summary)), file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    ask = sub.add_parser("ask", help="answer a question from the knowledge bases (normal or strict mode)")
    ask.add_argument("--kb", action="append", help="knowledge base (repeatable; default: all you can read)")
    ask.add_argument("--mode", choices=["normal", "strict"], help="default: the mode set in the settings")
    ask.add_argument("--chat", help="continue this saved chat (default: store nothing)")
    ask.add_argument("--web", action="store_true", help="search the web too (normal mode; needs web_search.enable_web_search)")
    ask.add_argument("--assistant", help="answer with this assistant's preset (python -m core assistants list)")
    ask.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")
    add_where_argument(ask)
    ask.add_argument("question")
    ask.set_defaults(handler=cmd_ask)

    cmp = sub.add_parser("compare", help="answer a question in normal and in strict mode, side by side")
    cmp.add_argument("--kb", action="append", help="knowledge base (repeatable)")
    cmp.add_argument("--batch", help="file of questions: CSV (question column), JSONL, or one per line")
    cmp.add_argument("--web", action="store_true", help="let the normal side search the web (strict never does)")
    cmp.add_argument("--report", metavar="FILE.html", help="also write the A/B page's HTML report (self-contained, no scripts)")
    cmp.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")
    add_where_argument(cmp)
    cmp.add_argument("question", nargs="?")
    cmp.set_defaults(handler=cmd_compare)
