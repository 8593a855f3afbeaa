"""The tables of chunk editing (made by revision 0008_chunk_edits).

A ``ChunkEdit`` row is the hand-made state of one chunk of a file: its text replaced, its keywords,
disabled, or a chunk added by hand. ``base_text`` is the passage as the file made it: after a
reindex the edit follows the chunk that still holds that passage (chunking may have moved it), and
is dropped when no chunk does. A ``ChunkEditLog`` row is one change, who made it and when, with
the chunk's state before and after.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from core.db.models import new_id, utcnow


class ChunkEdit(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("file_id", "chunk_index", name="uq_chunkedit_file_chunk"),)

    id: str = Field(default_factory=new_id, primary_key=True)
    file_id: str = Field(index=True)
    kb_id: str = Field(index=True)
    chunk_index: int  # where it stands in the file's index now (added chunks: ADDED_BASE and up)
    kind: str = "edited"  # edited | added
    base_text: str = Field(default="", sa_column=Column(Text))  # the passage as the file made it ("" added)
    text: str | None = Field(default=None, sa_column=Column(Text))  # the replacement; None: the file's own
    keywords: list = Field(default_factory=list, sa_column=Column(JSON))
    disabled: bool = False
    # what the point says besides its text (heading path, page...): an enabled chunk is rebuilt from it
    payload: dict = Field(default_factory=dict, sa_column=Column(JSON))
    updated_by: str = ""  # user id
    updated_at: datetime = Field(default_factory=utcnow)


class ChunkEditLog(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    file_id: str = Field(index=True)
    kb_id: str = Field(index=True)
    chunk_index: int
    action: str  # edit | disable | enable | add | dropped
    actor_id: str = ""
    actor_name: str = ""
    at: datetime = Field(default_factory=utcnow, index=True)
    before: dict | None = Field(default=None, sa_column=Column(JSON))  # {"text", "keywords", "disabled"}
    after: dict | None = Field(default=None, sa_column=Column(JSON))
    note: str = Field(default="", sa_column=Column(Text))
