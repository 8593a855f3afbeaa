"""The table columns that hold values encrypted with the engine's box (e.g. Google Drive tokens).

A leaf: a table module registers its columns here when it is imported, and ``python -m core
secrets rotate`` (rotation.py) re-encrypts every registered column, without the two importing
each other for it.
"""

from __future__ import annotations

# (SQLModel table class, column name)
ENCRYPTED_COLUMNS: list[tuple[type, str]] = []


def register_encrypted_column(model: type, column: str) -> None:
    if (model, column) not in ENCRYPTED_COLUMNS:
        ENCRYPTED_COLUMNS.append((model, column))
