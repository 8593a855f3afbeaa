"""Curated answers as CSV: columns question, answer and optionally approved_by, approved_at.

Import reports a result per row: a bad row fails alone, by its line number and why, and every
good row is stored (a question already there gets the new answer). Export writes the same
columns, so an export imports back; a cell that a spreadsheet would run as a formula (=, +, -,
@ first) is written with a leading apostrophe, which import takes off again.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlmodel import select

from core.accounts.access import resolve_kb
from core.curated import store
from core.curated.match import normalized
from core.db.database import Database
from core.db.models import CuratedAnswer, utcnow
from core.embeddings.base import Embedder
from core.errors import CoreError, InvalidInput
from core.types import Actor

COLUMNS = ("question", "answer", "approved_by", "approved_at")
MAX_CSV_BYTES = 20 * 1024 * 1024
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass
class RowError:
    line: int
    message: str


@dataclass
class ImportReport:
    added: int = 0
    updated: int = 0
    errors: list[RowError] = field(default_factory=list)


def _rows(text: str) -> list[tuple[int, list[str]]]:
    """(line the row starts on, cells), blank rows left out."""
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, start = [], 1
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InvalidInput(f"the CSV file cannot be read past line {reader.line_num}: {exc}") from None
    return rows


def _columns(first: list[str]) -> tuple[dict[str, int], bool]:
    """Column positions, and whether the first row is a header (it names question and answer)."""
    names = [c.strip().lower() for c in first]
    if "question" in names and "answer" in names:
        unknown = [n for n in names if n and n not in COLUMNS]
        if unknown:
            raise InvalidInput(f"unknown CSV column(s): {', '.join(unknown)} (expected {', '.join(COLUMNS)})")
        return {n: i for i, n in enumerate(names) if n}, True
    return {n: i for i, n in enumerate(COLUMNS)}, False


def _cell(cells: list[str], cols: dict[str, int], name: str) -> str:
    i = cols.get(name)
    value = cells[i].strip() if i is not None and i < len(cells) else ""
    if value.startswith("'") and value[1:2] in _FORMULA_START:
        value = value[1:]
    return value


def _moment(value: str) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"approved_at '{value}' is not a date (use 2025-01-31 or 2025-01-31T09:30:00+00:00)") from None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def decode(data: bytes | str) -> str:
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    if len(data) > MAX_CSV_BYTES:
        raise InvalidInput(f"the CSV file is larger than {MAX_CSV_BYTES // (1024 * 1024)} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the CSV file is not UTF-8 text (byte {exc.start})") from None


def import_csv(db: Database, embedder: Embedder, actor: Actor, kb_ref: str, data: bytes | str) -> ImportReport:
    text = decode(data)
    with db.read() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)  # a refusal is the whole answer, before any row
    rows = _rows(text)
    report = ImportReport()
    if not rows:
        return report
    cols, header = _columns(rows[0][1])
    seen: dict[str, int] = {}
    for line, cells in rows[1:] if header else rows:
        try:
            if any(c.strip() for c in cells[len(cols) if header else len(COLUMNS):]):
                raise InvalidInput(f"more cells than the {len(cols) if header else len(COLUMNS)} columns"
                                   + (" the header names" if header else f" ({', '.join(COLUMNS)})"))
            question, answer = store.check_texts(_cell(cells, cols, "question"), _cell(cells, cols, "answer"))
            key = normalized(question)
            if key in seen:
                raise InvalidInput(f"the same question as line {seen[key]}")
            seen[key] = line
            name, moment = store.approval(actor, _cell(cells, cols, "approved_by") or None,
                                          _moment(_cell(cells, cols, "approved_at")))
            added = _store_row(db, embedder, actor, kb.id, question, answer, name, moment)
        except CoreError as exc:
            report.errors.append(RowError(line, exc.message))
            continue
        if added:
            report.added += 1
        else:
            report.updated += 1
    return report


def _store_row(db: Database, embedder: Embedder, actor: Actor, kb_id: str, question: str, answer: str,
               name: str, moment: datetime) -> bool:
    """Add the pair, or give a question already there this answer and approval. True when added."""
    vector = store.vector_of(embedder, question)
    with db.write() as s:
        resolve_kb(s, actor, kb_id, write=True)
        row = store._same_question(s, kb_id, question)
        if row is None:
            s.add(CuratedAnswer(kb_id=kb_id, question=question, answer=answer, approved_by=name, approved_at=moment,
                                created_by=actor.user_id, embedder_id=embedder.id, vector=vector))
            return True
        row.question, row.answer, row.approved_by, row.approved_at = question, answer, name, moment
        row.vector, row.embedder_id, row.updated_at = vector, embedder.id, utcnow()
        s.add(row)
        return False


def _safe(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_START) else value


def export_csv(db: Database, actor: Actor, kb_ref: str) -> str:
    with db.read() as s:
        kb = resolve_kb(s, actor, kb_ref)
        rows = s.exec(select(CuratedAnswer).where(CuratedAnswer.kb_id == kb.id).order_by(CuratedAnswer.approved_at)).all()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([_safe(r.question), _safe(r.answer), _safe(r.approved_by), store.iso(r.approved_at)])
    return out.getvalue()
