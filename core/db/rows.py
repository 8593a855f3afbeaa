"""Rows written in bulk, without a model instance per row.

Building a SQLModel table instance runs SQLAlchemy's attribute instrumentation for every field
and has pydantic inspect the signature of every default factory: about 0.1 ms a row, more than
the rest of a small file's registration; loading rows to change a few columns costs about as
much. Ingestion inserts its file and job rows with one executemany instead, each row's values
filled in exactly as the model's constructor would, and updates them with one executemany.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any, Callable

from sqlalchemy import bindparam, insert, update
from sqlmodel import Session, SQLModel

_REQUIRED = object()
_IMMUTABLE = (str, int, float, bool, bytes, type(None))


@cache
def _defaults(model: type[SQLModel]) -> tuple[tuple[str, Any, Callable[[], Any] | None], ...]:
    """(field, default, default factory) of each field of ``model``; ``_REQUIRED`` when it has neither."""
    out = []
    for name, field in model.model_fields.items():
        if field.default_factory is not None:
            out.append((name, None, field.default_factory))
        else:
            out.append((name, _REQUIRED if field.is_required() else field.default, None))
    return tuple(out)


def row_values(model: type[SQLModel], **values: Any) -> dict[str, Any]:
    """Every column of a new ``model`` row: ``values``, and the model's defaults for the rest (a
    default factory is called, so each row gets its own id, time and empty dict)."""
    row: dict[str, Any] = {}
    for name, default, factory in _defaults(model):
        if name in values:
            row[name] = values.pop(name)
        elif factory is not None:
            row[name] = factory()
        elif default is _REQUIRED:
            raise TypeError(f"{model.__name__} needs a value for '{name}'")
        else:  # a mutable default is copied, as pydantic does: rows never share one
            row[name] = default if isinstance(default, _IMMUTABLE) else copy.deepcopy(default)
    if values:
        raise TypeError(f"{model.__name__} has no field {', '.join(sorted(values))}")
    return row


def insert_rows(session: Session, model: type[SQLModel], rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` (from ``row_values``) in the session's transaction, one statement for all."""
    if rows:
        session.execute(insert(model.__table__), rows)  # type: ignore[attr-defined]


def update_rows(session: Session, model: type[SQLModel], rows: list[dict[str, Any]]) -> None:
    """Set columns of existing rows by id in the session's transaction, one statement for all;
    every dict has ``id`` and the same columns. A row that is gone is left alone (an UPDATE of
    no row), as when it is changed on its own."""
    if not rows:
        return
    table = model.__table__  # type: ignore[attr-defined]
    columns = [name for name in rows[0] if name != "id"]
    # bound parameters may not share a column's name in an UPDATE's SET
    statement = update(table).where(table.c.id == bindparam("row_id")).values(
        {name: bindparam(f"new_{name}") for name in columns})
    session.execute(statement, [{"row_id": row["id"], **{f"new_{name}": row[name] for name in columns}}
                                for row in rows])
