"""What the HTTP API shows of metadata fields, a file's values and a CSV import (pydantic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class FieldOut(_Out):
    name: str
    kind: str
    auto: bool


class FileMetadataOut(_Out):
    file_id: str
    file_name: str
    kb_id: str
    values: dict[str, Any]


class RowErrorOut(_Out):
    line: int
    message: str


class MetadataImportOut(_Out):
    updated: int
    errors: list[RowErrorOut]


class FieldDeleted(_Out):
    deleted: str
