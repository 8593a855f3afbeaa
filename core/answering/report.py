"""A/B batch results as rows, a per-mode summary, and exports (CSV, JSONL, a self-contained
HTML report). The A/B page and `compare --batch` share these; nothing here draws a page."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from core.answering.scoring import NOT_COVERED, OUTCOMES, refused, score, verdict
from core.answering.types import Answer, Comparison

MODES = ("normal", "strict")


def _total_ms(answer: Answer) -> float:
    t = answer.timings_ms or {}
    return float(t.get("total_ms") or max((v for v in t.values() if isinstance(v, (int, float))), default=0.0))


def _citation_line(c) -> str:
    if getattr(c, "origin", "") == "curated":  # a curated answer: who approved it and when
        return f"[{c.n}] curated · {c.approved_by} · {c.approved_at[:10]}"
    where = " · ".join(x for x in (c.source_name, c.location) if x)
    return f"[{c.n}] {where}"


def comparison_row(c: Comparison, expected: str | None = None) -> dict[str, Any]:
    """One question: both answers with citations, hit, weak match, model call, latency and (with
    an expected answer) the outcome per mode. The modes differ when their verdicts do
    (``scoring.verdict``), not when two refusals are worded differently."""
    row: dict[str, Any] = {"question": c.question, "expected": expected or ""}
    for mode, a in (("normal", c.normal), ("strict", c.strict)):
        s = score(a, expected)
        row.update({
            f"{mode}_answer": a.text or a.error,
            f"{mode}_citations": "; ".join(_citation_line(x) for x in a.citations),
            f"{mode}_hit": bool(a.hit),
            f"{mode}_weak": bool(getattr(a, "weak_match", False)),
            f"{mode}_curated": bool(getattr(a, "curated", None)),
            f"{mode}_refused": refused(a),
            f"{mode}_llm_called": bool(a.llm_called),
            f"{mode}_ms": round(_total_ms(a), 1),
            f"{mode}_outcome": s.outcome if s else "",
            f"{mode}_as_expected": s.as_expected if s else None,
            f"{mode}_verdict": verdict(a, expected),
        })
    row["modes_differ"] = row["normal_verdict"] != row["strict_verdict"]
    row["languages"] = language_pair(c.question, expected)
    return row


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def language_pair(question: str, expected: str | None) -> str:
    """"zh → en": a Chinese question whose expected answer is English (asked across languages);
    the question's language alone when there is no expected fact (not covered, or not scored)."""
    asked = "zh" if _CJK.search(question) else "en"
    fact = (expected or "").split("|")[0].strip()
    if not fact or fact == NOT_COVERED:
        return asked
    return f"{asked} → {'zh' if _CJK.search(fact) else 'en'}"


@dataclass
class PairSummary:
    languages: str
    questions: int
    normal_as_expected: int
    strict_as_expected: int


def summarise_languages(rows: list[dict[str, Any]]) -> list[PairSummary]:
    """As expected per language pair (scored questions only): same-language rows beside the rows
    asked in the other language than the document's."""
    out: dict[str, PairSummary] = {}
    for r in rows:
        if not r["normal_outcome"] and not r["strict_outcome"]:
            continue
        s = out.setdefault(r["languages"], PairSummary(r["languages"], 0, 0, 0))
        s.questions += 1
        s.normal_as_expected += bool(r["normal_as_expected"])
        s.strict_as_expected += bool(r["strict_as_expected"])
    return sorted(out.values(), key=lambda s: (len(s.languages), s.languages))


def comparison_rows(comparisons: list[Comparison], expected: list[str | None] | None = None) -> list[dict[str, Any]]:
    expected = expected or [None] * len(comparisons)
    return [comparison_row(c, e) for c, e in zip(comparisons, expected)]


@dataclass
class ModeSummary:
    mode: str
    questions: int
    hits: int
    refusals: int
    model_calls: int
    mean_ms: float
    scored: int  # questions with an expected answer
    correct: int
    wrong: int
    as_expected: int


def summarise(rows: list[dict[str, Any]]) -> list[ModeSummary]:
    out = []
    for mode in MODES:
        scored = [r for r in rows if r[f"{mode}_outcome"]]
        out.append(ModeSummary(
            mode=mode, questions=len(rows), hits=sum(r[f"{mode}_hit"] for r in rows),
            refusals=sum(r[f"{mode}_refused"] for r in rows), model_calls=sum(r[f"{mode}_llm_called"] for r in rows),
            mean_ms=round(sum(r[f"{mode}_ms"] for r in rows) / len(rows), 1) if rows else 0.0,
            scored=len(scored), correct=sum(r[f"{mode}_outcome"] == "correct" for r in scored),
            wrong=sum(r[f"{mode}_outcome"] == "wrong" for r in scored),
            as_expected=sum(bool(r[f"{mode}_as_expected"]) for r in scored)))
    return out


@dataclass
class ScoredBatch:
    """Questions compared in both modes as the A/B page shows them: each comparison with its
    expected answer (None: not given), its row (``comparison_row``) and the per-mode summary."""

    comparisons: list[Comparison]
    expected: list[str | None]
    rows: list[dict[str, Any]]
    summary: list[ModeSummary]


def scored_batch(comparisons: list[Comparison], expected: list[str | None]) -> ScoredBatch:
    rows = comparison_rows(comparisons, expected)
    return ScoredBatch(comparisons, expected, rows, summarise(rows))


def to_csv(rows: list[dict[str, Any]]) -> bytes:
    """UTF-8 with a byte-order mark, so spreadsheet programs read Chinese correctly."""
    buf = io.StringIO()
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return buf.getvalue().encode("utf-8-sig")


def to_jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC",sans-serif;margin:2rem;color:#1f2328;max-width:80rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}table{border-collapse:collapse;width:100%}
th,td{border:1px solid #d0d7de;padding:.4rem .6rem;text-align:left;vertical-align:top}th{background:#f6f8fa}
.answer{white-space:pre-wrap}.cites{color:#57606a;font-size:.85rem;white-space:pre-wrap}
.tag{display:inline-block;border-radius:.6rem;padding:0 .5rem;font-size:.8rem;margin-right:.3rem;background:#eaeef2}
.correct{background:#dafbe1}.refused{background:#fff8c5}.wrong{background:#ffebe9}
.bar{height:1rem;background:#0969da;display:inline-block;vertical-align:middle}.strict .bar{background:#cf222e}
.meta{color:#57606a;font-size:.85rem}
table.md{width:auto;margin:.3rem 0;font-size:.9rem}table.md th,table.md td{padding:.2rem .5rem}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _md_table(lines: list[str]) -> str:
    """A Markdown pipe table (header, rule, rows) as an HTML table, every cell escaped."""
    head = "".join(f"<th>{_e(c)}</th>" for c in _cells(lines[0]))
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in _cells(line)) + "</tr>" for line in lines[2:])
    return f"<table class='md'><tr>{head}</tr>{body}</table>"


def answer_html(text: str) -> str:
    """An answer's text for the report: Markdown pipe tables become HTML tables (quoted table rows
    are the extractive answerer's way to cite a table), the rest stays text; all of it escaped."""
    lines, out, plain = (text or "").split("\n"), [], []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and _TABLE_LINE.match(lines[j]):
            j += 1
        if j - i >= 2 and _TABLE_RULE.match(lines[i + 1]):
            if plain:
                out.append(f"<div class='answer'>{_e(chr(10).join(plain))}</div>")
                plain = []
            out.append(_md_table(lines[i:j]))
            i = j
        else:
            plain.append(lines[i])
            i += 1
    if plain:
        out.append(f"<div class='answer'>{_e(chr(10).join(plain).strip(chr(10)))}</div>")
    return "".join(out)


def _bar(value: int, total: int) -> str:
    width = 0 if not total else round(100 * value / total)
    return f'<span class="bar" style="width:{width * 2}px"></span> {value} / {total}'


def html_report(rows: list[dict[str, Any]], *, title: str = "Strict A/B compare", labels: dict[str, str] | None = None,
                generated: datetime | None = None) -> str:
    """One HTML file with no outside resources (styles inline, no scripts); every value escaped."""
    label = {"normal": "Normal", "strict": "Strict", "question": "Question", "expected": "Expected answer",
             "hits": "Hits", "refusals": "Refusals", "model_calls": "Model calls", "mean_ms": "Mean latency (ms)",
             "as_expected": "As expected", "correct": "correct", "refused": "refused", "wrong": "wrong",
             "hit": "hit", "no_hit": "no hit", "model": "model called", "no_model": "model not called",
             "weak": "weak match", "questions": "Questions", "modes_differ": "Modes differ",
             "generated": "Generated", "not_covered": "not covered by the knowledge base (a refusal is right)",
             "languages": "Question → answer language",
             } | (labels or {})
    when = (generated or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f'<!doctype html><html><head><meta charset="utf-8"><title>{_e(title)}</title><style>{_CSS}</style></head><body>',
             f"<h1>{_e(title)}</h1><p class='meta'>{_e(label['questions'])}: {len(rows)} · "
             f"{_e(label['modes_differ'])}: {sum(bool(r['modes_differ']) for r in rows)} · "
             f"{_e(label['generated'])}: {_e(when)}</p><table><tr><th></th>"
             f"<th>{_e(label['hits'])}</th><th>{_e(label['refusals'])}</th><th>{_e(label['model_calls'])}</th>"
             f"<th>{_e(label['mean_ms'])}</th><th>{_e(label['as_expected'])}</th></tr>"]
    for s in summarise(rows):
        expected_cell = _bar(s.as_expected, s.scored) if s.scored else "—"
        parts.append(f"<tr class='{s.mode}'><th>{_e(label[s.mode])}</th><td>{_bar(s.hits, s.questions)}</td>"
                     f"<td>{_bar(s.refusals, s.questions)}</td><td>{_bar(s.model_calls, s.questions)}</td>"
                     f"<td>{s.mean_ms:.0f}</td><td>{expected_cell}</td></tr>")
    pairs = summarise_languages(rows)
    if pairs:
        parts.append(f"</table><h2>{_e(label['languages'])}</h2><table><tr><th>{_e(label['languages'])}</th>"
                     f"<th>{_e(label['questions'])}</th><th>{_e(label['normal'])}: {_e(label['as_expected'])}</th>"
                     f"<th>{_e(label['strict'])}: {_e(label['as_expected'])}</th></tr>")
        for p in pairs:
            parts.append(f"<tr><td>{_e(p.languages)}</td><td>{p.questions}</td>"
                         f"<td>{_bar(p.normal_as_expected, p.questions)}</td>"
                         f"<td class='strict'>{_bar(p.strict_as_expected, p.questions)}</td></tr>")
    parts.append(f"</table><h2>{_e(label['question'])}</h2><table><tr><th>{_e(label['question'])}</th>"
                 f"<th>{_e(label['normal'])}</th><th>{_e(label['strict'])}</th></tr>")
    for r in rows:
        cells = []
        for mode in MODES:
            outcome = r[f"{mode}_outcome"]
            tags = [label["hit"] if r[f"{mode}_hit"] else label["no_hit"], *([label["weak"]] if r.get(f"{mode}_weak") else []),
                    label["model"] if r[f"{mode}_llm_called"] else label["no_model"], f"{r[f'{mode}_ms']:.0f} ms"]
            tag_html = "".join(f"<span class='tag'>{_e(x)}</span>" for x in tags)
            if outcome in OUTCOMES:
                tag_html = f"<span class='tag {outcome}'>{_e(label[outcome])}</span>" + tag_html
            cells.append(f"<td>{tag_html}{answer_html(r[f'{mode}_answer'])}"
                         f"<div class='cites'>{_e(r[f'{mode}_citations'].replace('; ', chr(10)))}</div></td>")
        said = label["not_covered"] if r["expected"] == NOT_COVERED else r["expected"]  # as the page says it
        expected = f"<div class='meta'>{_e(label['expected'])}: {_e(said)}</div>" if r["expected"] else ""
        parts.append(f"<tr><td>{_e(r['question'])}{expected}</td>{''.join(cells)}</tr>")
    parts.append("</table></body></html>")
    return "".join(parts)
