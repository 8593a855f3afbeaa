"""Columns added to an existing table by a newer ragdesk: ``create_all`` makes new tables but
never alters old ones, so each model column missing from its table is added (nullable, with
no data to move). Runs at start-up, in ``Database._migrate``."""

from __future__ import annotations

from sqlalchemy import inspect
from sqlalchemy.engine import Engine as SAEngine
from sqlmodel import SQLModel


def add_missing_columns(engine: SAEngine) -> list[str]:
    """``table.column`` for each column added."""
    added = []
    existing_tables = set(inspect(engine).get_table_names())
    with engine.begin() as conn:
        for table in SQLModel.metadata.sorted_tables:
            if table.name not in existing_tables:
                continue
            present = {c["name"] for c in inspect(conn).get_columns(table.name)}
            for column in table.columns:
                if column.name in present or column.primary_key:
                    continue
                kind = column.type.compile(dialect=engine.dialect)
                conn.exec_driver_sql(f'ALTER TABLE "{table.name}" ADD COLUMN "{column.name}" {kind}')
                added.append(f"{table.name}.{column.name}")
    return added
