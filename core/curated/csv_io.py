"""Curated answers as CSV: columns question, answer and optionally approved_by, approved_at.

Import reports a result per row: a bad row fails alone, by its line number and why, and every
good row is stored (a question already there gets the new answer) — all of them embedded in one
batch and written in one transaction. Export writes the same columns, so an export imports back,
values exactly, for the owner as for an admin: an approval (name and time) already on record for
that question and answer in a knowledge base of hers is hers to bring back.

Formula cells: a spreadsheet runs a cell that begins with =, +, -, @ (or a tab or carriage
return) — and one that opens a ``;``-, tab- or line-separated reading does so at every such
separator inside our cells too. Export puts an apostrophe at each such start (and before an
apostrophe already there, so the rule is reversible); import takes exactly those off again.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlmodel import select

from core.accounts.access import resolve_kb
from core.curated import store
from core.curated.match import normalized
from core.db.database import Database
from core.db.models import CuratedAnswer, KnowledgeBase, utcnow
from core.embeddings.base import Embedder
from core.errors import CoreError, InvalidInput
from core.types import Actor

COLUMNS = ("question", "answer", "approved_by", "approved_at")
MAX_CSV_BYTES = 20 * 1024 * 1024
# a cell's start, or a separator another reading of the file splits on, then what a spreadsheet runs
# (or our apostrophe itself, escaped the same way so that import can tell the two apart)
_RUNNABLE = re.compile(r"(^|[;\t\r\n])(?=[ ]*[=+\-@\t\r'])")
_NEUTRALISED = re.compile(r"(^|[;\t\r\n])'(?=[ ]*[=+\-@\t\r'])")


@dataclass
class RowError:
    line: int
    message: str


@dataclass
class ImportReport:
    added: int = 0
    updated: int = 0
    errors: list[RowError] = field(default_factory=list)


def csv_rows(text: str) -> list[tuple[int, list[str]]]:
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


def neutralised(value: str) -> str:
    """``value`` as export writes it: an apostrophe wherever a spreadsheet would start a formula."""
    return _RUNNABLE.sub(r"\1'", value)


def restored(cell: str) -> str:
    """The value ``neutralised`` wrote ``cell`` for (a cell nobody neutralised comes back as it is)."""
    return _NEUTRALISED.sub(r"\1", cell)


def _cell(cells: list[str], cols: dict[str, int], name: str) -> str:
    i = cols.get(name)
    return restored(cells[i].strip()) if i is not None and i < len(cells) else ""


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


@dataclass
class _Good:
    line: int
    question: str
    answer: str
    approved_by: str
    approved_at: datetime


def import_csv(db: Database, embedder: Embedder, actor: Actor, kb_ref: str, data: bytes | str) -> ImportReport:
    text = decode(data)
    with db.read() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)  # a refusal is the whole answer, before any row
        on_record = _approvals_on_record(s, actor)
    rows = csv_rows(text)
    report = ImportReport()
    if not rows:
        return report
    cols, header = _columns(rows[0][1])
    width = len(cols) if header else len(COLUMNS)
    seen: dict[str, int] = {}
    good: list[_Good] = []
    for line, cells in rows[1:] if header else rows:
        try:
            if any(c.strip() for c in cells[width:]):
                raise InvalidInput(f"more cells than the {width} columns"
                                   + (" the header names" if header else f" ({', '.join(COLUMNS)})"))
            question, answer = store.check_texts(_cell(cells, cols, "question"), _cell(cells, cols, "answer"))
            key = normalized(question)
            if key in seen:
                raise InvalidInput(f"the same question as line {seen[key]}")
            seen[key] = line
            by, at = _cell(cells, cols, "approved_by"), _moment(_cell(cells, cols, "approved_at"))
            if (key, answer, by, at) in on_record:  # her own export coming back: the approval stays as it was
                name, moment = by, at
            else:
                name, moment = store.approval(actor, by or None, at)
        except CoreError as exc:
            report.errors.append(RowError(line, exc.message))
            continue
        good.append(_Good(line, question, answer, name, moment))
    if good:  # one embedding batch, then one transaction
        vectors = store.vectors_of(embedder, [g.question for g in good])
        report.added, report.updated = _store_rows(db, embedder, actor, kb.id, good, vectors)
    return report


def _approvals_on_record(s, actor: Actor) -> set[tuple[str, str, str, datetime]]:
    """(question key, answer, approved by, approved at) of every curated answer in a knowledge
    base the actor owns: what a plain owner may bring back from her own export. Admins may record
    any approval, so theirs is not needed."""
    if actor.is_admin:
        return set()
    rows = s.exec(select(CuratedAnswer).join(KnowledgeBase, KnowledgeBase.id == CuratedAnswer.kb_id)
                  .where(KnowledgeBase.owner_id == actor.user_id))
    return {(normalized(r.question), r.answer, r.approved_by, _moment(store.iso(r.approved_at))) for r in rows}


def _store_rows(db: Database, embedder: Embedder, actor: Actor, kb_id: str, good: list[_Good],
                vectors: list[list[float]]) -> tuple[int, int]:
    """Add each pair, or give a question already there this answer and approval: (added, updated)."""
    added = updated = 0
    with db.write() as s:
        resolve_kb(s, actor, kb_id, write=True)
        existing = {normalized(r.question): r for r in s.exec(select(CuratedAnswer).where(CuratedAnswer.kb_id == kb_id))}
        for g, vector in zip(good, vectors):
            row = existing.get(normalized(g.question))
            if row is None:
                row = CuratedAnswer(kb_id=kb_id, question=g.question, answer=g.answer, approved_by=g.approved_by,
                                    approved_at=g.approved_at, created_by=actor.user_id, embedder_id=embedder.id,
                                    vector=vector)
                existing[normalized(g.question)] = row
                added += 1
            else:
                row.question, row.answer, row.approved_by, row.approved_at = g.question, g.answer, g.approved_by, g.approved_at
                row.vector, row.embedder_id, row.updated_at = vector, embedder.id, utcnow()
                updated += 1
            s.add(row)
    return added, updated


def export_csv(db: Database, actor: Actor, kb_ref: str) -> str:
    with db.read() as s:
        kb = resolve_kb(s, actor, kb_ref)
        rows = s.exec(select(CuratedAnswer).where(CuratedAnswer.kb_id == kb.id).order_by(CuratedAnswer.approved_at)).all()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([neutralised(r.question), neutralised(r.answer), neutralised(r.approved_by),
                         store.iso(r.approved_at)])
    return out.getvalue()
