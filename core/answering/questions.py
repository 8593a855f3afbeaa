"""A batch of questions from an uploaded or local file (the A/B page and `compare --batch`)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

from core.errors import InvalidInput

MAX_BATCH = 500
# Column / key names accepted for the optional expected answer (see core/answering/scoring.py).
EXPECTED_KEYS = ("expected", "expected_answer", "answer", "gold")
PASTED_SEPARATOR = "||"  # pasted line: "question || expected answer"


@dataclass(frozen=True)
class BatchItem:
    question: str
    expected: str | None = None  # None: not given; "-": the knowledge base does not cover it


def parse_questions(name: str, data: bytes, limit: int = MAX_BATCH) -> list[str]:
    """The questions of a batch, without expected answers."""
    return [item.question for item in parse_batch(name, data, limit)]


def _expected_of(item: dict) -> str | None:
    for key in EXPECTED_KEYS:
        if key in item and item[key] is not None:
            return str(item[key]).strip()
    return None


def parse_batch(name: str, data: bytes, limit: int = MAX_BATCH) -> list[BatchItem]:
    """Questions, each with an optional expected answer, from CSV (a 'question' column, else the
    first; an 'expected' column), JSONL (objects with "question" and "expected", or plain
    strings), or plain text (one per line, "question || expected" for an expected answer)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{name} is not UTF-8 text") from None
    lower = name.lower()
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        out: list[BatchItem] = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{name}, line {n}: not valid JSON ({exc.msg})") from None
            q = item.get("question") if isinstance(item, dict) else item
            if not isinstance(q, str):
                raise InvalidInput(f'{name}, line {n}: expected a string or an object with "question"')
            out.append(BatchItem(q, _expected_of(item) if isinstance(item, dict) else None))
    elif lower.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(text)))
        header = [h.strip().lower() for h in rows[0]] if rows else []
        col = header.index("question") if "question" in header else 0
        exp = next((header.index(k) for k in EXPECTED_KEYS if k in header), None)
        out = [BatchItem(r[col], r[exp].strip() if exp is not None and len(r) > exp else None)
               for r in (rows[1:] if "question" in header else rows) if len(r) > col]
    else:
        out = []
        for line in text.splitlines():
            q, sep, expected = line.partition(PASTED_SEPARATOR)
            out.append(BatchItem(q, expected.strip() if sep else None))
    questions = [BatchItem(i.question.strip(), i.expected) for i in out if i.question and i.question.strip()]
    if len(questions) > limit:
        raise InvalidInput(f"at most {limit} questions per batch ({len(questions)} given)")
    return questions
