"""Metadata values in bulk from a CSV: a ``file`` column (a file's name or id in the knowledge
base), then one column per field, named as the field. An empty cell leaves that value as it is;
a cell of just ``-`` removes it.

Unknown column names refuse the whole file before any row (a typo would otherwise drop a
column's values silently). Then each row stands alone: an unknown or ambiguous file, or a value
its field's type cannot take, fails that row with its line number and why; every good row is
stored, in one transaction, and written to the chunks' payload.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import select

from core.accounts.access import resolve_kb
from core.curated.csv_io import RowError, csv_rows, decode, restored
from core.db.database import Database
from core.db.models import FileRecord
from core.errors import CoreError, InvalidInput
from core.metadata import payload
from core.metadata.store import checked_values, store_values
from core.names import printable
from core.types import Actor
from core.vectorstore.base import VectorStore

FILE_COLUMN = "file"
REMOVE = "-"


@dataclass
class MetadataImportReport:
    updated: int = 0  # files whose values were stored
    errors: list[RowError] = field(default_factory=list)


def import_csv(db: Database, store: VectorStore, actor: Actor, kb_ref: str, data: bytes | str) -> MetadataImportReport:
    text = decode(data)
    with db.read() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)  # a refusal is the whole answer, before any row
        fields = {f.name: f for f in payload.all_fields(s, kb.id)}
        files = list(s.exec(select(FileRecord).where(FileRecord.kb_id == kb.id)))
    rows = csv_rows(text)
    report = MetadataImportReport()
    if not rows:
        return report
    header = [restored(c.strip()) for c in rows[0][1]]
    if not header or header[0].lower() != FILE_COLUMN:
        raise InvalidInput(f"the first column of the header must be '{FILE_COLUMN}', then one column per field")
    columns = header[1:]
    unknown = [c for c in columns if c not in fields or fields[c].auto]
    if unknown:
        raise InvalidInput(f"unknown or automatic field column(s): {', '.join(printable(c) for c in unknown)} "
                           f"(fields you may set: {', '.join(n for n, f in fields.items() if not f.auto) or 'none yet'})")
    by_id = {f.id: f for f in files}
    by_name: dict[str, list[FileRecord]] = {}
    for f in files:
        by_name.setdefault(f.name, []).append(f)
    good: list[tuple[str, dict]] = []
    seen: dict[str, int] = {}
    for line, cells in rows[1:]:
        try:
            if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
                raise InvalidInput(f"more cells than the {len(header)} columns of the header")
            ref = restored(cells[0].strip())
            rec = by_id.get(ref) or _by_name(by_name, ref)
            if rec.id in seen:
                raise InvalidInput(f"the same file as line {seen[rec.id]}")
            raw = {c: restored(cells[i + 1].strip()) for i, c in enumerate(columns) if i + 1 < len(cells)}
            given = {c: (None if v == REMOVE else v) for c, v in raw.items() if v != ""}
            values = checked_values(fields, given)
        except CoreError as exc:
            report.errors.append(RowError(line, exc.message))
            continue
        seen[rec.id] = line
        if values:
            good.append((rec.id, values))
    if good:
        with db.write() as s:
            resolve_kb(s, actor, kb.id, write=True)
            for file_id, values in good:
                store_values(s, actor, file_id, values)
        payload.write(store, db, [f for f, _ in good])
        report.updated = len(good)
    return report


def _by_name(by_name: dict[str, list[FileRecord]], ref: str) -> FileRecord:
    if not ref:
        raise InvalidInput("the file cell is empty")
    found = by_name.get(ref, [])
    if not found:
        raise InvalidInput(f"no file '{printable(ref)}' in this knowledge base")
    if len(found) > 1:
        raise InvalidInput(f"several files are named '{printable(ref)}'; use its id")
    return found[0]
