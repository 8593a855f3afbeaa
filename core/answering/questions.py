"""A batch of questions from an uploaded or local file (the A/B page and `compare --batch`)."""

from __future__ import annotations

import csv
import io
import json

from core.errors import InvalidInput

MAX_BATCH = 500


def parse_questions(name: str, data: bytes, limit: int = MAX_BATCH) -> list[str]:
    """Questions from CSV (a 'question' column, else the first column), JSONL (objects with
    "question", or plain strings), or plain text (one per line)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{name} is not UTF-8 text") from None
    lower = name.lower()
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        out = []
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
            out.append(q)
    elif lower.endswith(".csv"):
        rows = list(csv.reader(io.StringIO(text)))
        header = [h.strip().lower() for h in rows[0]] if rows else []
        col = header.index("question") if "question" in header else 0
        out = [r[col] for r in (rows[1:] if "question" in header else rows) if len(r) > col]
    else:
        out = text.splitlines()
    questions = [q.strip() for q in out if q and q.strip()]
    if len(questions) > limit:
        raise InvalidInput(f"at most {limit} questions per batch ({len(questions)} given)")
    return questions
