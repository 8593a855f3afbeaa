"""How ``python -m core ask`` and ``compare`` read their options and print (the commands are derived
from core/services/answers.py's ``ask`` and ``compare_scored`` by core/cli/derived.py).

``ask`` stores nothing (a temporary chat) unless ``--chat ID`` continues a saved chat.
``compare --batch`` scores expected answers with core/answering/scoring.py and summarises like the
A/B page (core/answering/report.py); ``--report FILE.html`` writes the page's report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from core.answering.questions import BatchItem, parse_batch
from core.answering.report import ModeSummary, ScoredBatch, html_report
from core.answering.types import AnswerEvent, Citation
from core.errors import InvalidInput
from core.metadata.where import CLI_HELP, from_cli
from core.services.declare import Arg

_KB = "knowledge base (repeatable; default: all you can read)"
_WHERE = Arg(repeat=True, metavar="FIELD=VALUE", parse=from_cli, help=CLI_HELP)


class AnswerReport(BaseModel):
    """An answer as ``ask --json`` prints it (and each side of ``compare``): its text and facts,
    citations, events, timings and every passage retrieved."""

    model_config = ConfigDict(from_attributes=True)
    question: str
    text: str
    mode: str
    hit: bool
    weak_match: bool
    llm_called: bool
    from_kb: bool
    sources: list[str]
    flagged: bool
    error: str
    notices: list[str]
    citations: list[Citation]
    events: list[AnswerEvent]
    timings_ms: dict[str, float]
    retrieved: list[dict[str, Any]]
    chat_id: str | None
    message_id: str | None


class ModeScore(BaseModel):
    outcome: str | None  # correct | refused | wrong; None: no expected answer
    as_expected: bool | None
    verdict: str


class ComparedRow(BaseModel):
    """One question of ``compare --json``: both answers, the expected one and their scores."""

    model_config = ConfigDict(from_attributes=True)
    question: str
    normal: AnswerReport
    strict: AnswerReport
    expected: str | None
    scores: dict[str, ModeScore]
    modes_differ: bool


def assistant_alone(typed: dict) -> None:
    """``ask --assistant``: its preset sets the knowledge bases, the mode and the filter."""
    if typed["assistant"] and (typed["kbs"] or typed["mode"]):
        raise InvalidInput("--assistant sets the knowledge bases and the mode: leave out --kb and --mode")
    if typed["assistant"] and typed["where"]:
        raise InvalidInput("--where cannot be combined with --assistant: the assistant's own filter applies "
                           "(python -m core assistants update NAME --where ...)")


def read_batch(path: str) -> list[BatchItem]:
    """``--batch FILE``: the questions with their expected answers (CSV, JSONL or text; questions.py)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    items = parse_batch(Path(path).name, data)
    if not items:
        raise InvalidInput(f"no questions in {path}")
    return items


def question_or_batch(typed: dict) -> None:
    if bool(typed["batch"]) == bool(typed["question"]):
        raise InvalidInput("give either a QUESTION or --batch FILE")


ASK = {"kbs": Arg(flag="--kb", help=_KB), "mode": Arg(choices=("normal", "strict"), help="default: the mode set in the settings"),
       "chat_id": Arg(flag="--chat", help="continue this saved chat (default: store nothing)"),
       "web": Arg(help="search the web too (normal mode; needs web_search.enable_web_search)"),
       "assistant": Arg(help="answer with this assistant's preset (python -m core assistants list)"),
       "where": _WHERE}
COMPARE = {"question": Arg(nargs="?"), "kbs": Arg(flag="--kb", help="knowledge base (repeatable)"),
           "batch": Arg(parse=read_batch, help="file of questions: CSV (question column), JSONL, or one per line"),
           "web": Arg(help="let the normal side search the web (strict never does)"), "where": _WHERE}


def answer_text(p: dict) -> str:
    """An answer without --json: its mode and facts, the text (or error), notices, citations."""
    lines = [f"[{p['mode']}] hit={p['hit']} llm_called={p['llm_called']} ({p['timings_ms'].get('total_ms', 0):.0f} ms)"]
    lines.append(p["text"] if not p["error"] else f"error: {p['error']}")
    lines += [f"ⓘ {n}" for n in p["notices"]]
    for c in p["citations"]:
        where = f" ({c['location']})" if c["location"] else ""
        lines.append(f"  [{c['n']}] {c['source_name']}{where} score {c['score']:.3f}")
    return "\n".join(lines)


def compared(typed: dict, batch: ScoredBatch) -> list[dict] | dict:
    """What ``compare`` prints: a row per question (a batch), or the one question's row."""
    rows = [{"question": c.question, "normal": c.normal, "strict": c.strict, "expected": expected,
             "scores": {mode: {"outcome": row[f"{mode}_outcome"] or None, "as_expected": row[f"{mode}_as_expected"],
                               "verdict": row[f"{mode}_verdict"]} for mode in ("normal", "strict")},
             "modes_differ": row["modes_differ"]}
            for c, expected, row in zip(batch.comparisons, batch.expected, batch.rows)]
    return rows if typed["batch"] else rows[0]


def compared_text(printed: list[dict] | dict) -> str:
    """``compare`` without --json: each question, its expected answer, both answers."""
    blocks = []
    for r in printed if isinstance(printed, list) else [printed]:
        expected = f" (expected: {r['expected']})" if r["expected"] else ""
        blocks.append(f"Q: {r['question']}{expected}\n--- normal\n{answer_text(r['normal'])}\n--- strict\n"
                      f"{answer_text(r['strict'])}")
    return "\n\n".join(blocks)


def summary_lines(summary: list[ModeSummary], rows: list[dict]) -> list[str]:
    """The A/B page's headline counts, as text."""
    lines = []
    for s in summary:
        scored = f"as expected {s.as_expected}/{s.scored} (correct {s.correct}, wrong {s.wrong}), " if s.scored else ""
        lines.append(f"{s.mode}: {scored}refusals {s.refusals}/{s.questions}, hits {s.hits}/{s.questions}, "
                     f"model calls {s.model_calls}, mean {s.mean_ms:.0f} ms")
    lines.append(f"modes differ: {sum(bool(r['modes_differ']) for r in rows)} of {len(rows)}")
    return lines


def batch_summary(typed: dict, batch: ScoredBatch) -> str:
    """``compare --batch``'s note: the page's summary (after the answers; on stderr with --json)."""
    return "\n".join(summary_lines(batch.summary, batch.rows)) if typed["batch"] else ""


def report_html(batch: ScoredBatch) -> str:
    """``--report FILE.html``: the A/B page's report (self-contained, no scripts)."""
    return html_report(batch.rows)
