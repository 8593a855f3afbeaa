"""Tables of metadata fields (per knowledge base) and their values (per file). Made by revision
0009_metadata_fields."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from core.db.models import new_id, utcnow


class MetadataField(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("kb_id", "name", name="uq_metadata_field_kb_name"),)

    id: str = Field(default_factory=new_id, primary_key=True)
    kb_id: str = Field(index=True)
    name: str
    kind: str  # text | number | date | tags (core/metadata/conditions.py)
    created_by: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class FileMetadataValue(SQLModel, table=True):
    """One file's value of one field, as stored in the payload (string, float, RFC 3339 string, list)."""

    file_id: str = Field(primary_key=True)
    field_id: str = Field(primary_key=True, index=True)
    value: dict = Field(default_factory=dict, sa_column=Column(JSON))  # {"v": value}: JSON of any shape
    updated_by: str = ""
    updated_at: datetime = Field(default_factory=utcnow)
