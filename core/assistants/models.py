"""The tables of assistants (made by revision 0010_assistants; its filter by 0011_assistant_filter).

An ``Assistant`` row is one preset: the knowledge bases it answers from (ids; empty: every one the
caller may read), its mode, thresholds, top-k, prompt template, refusal text and metadata filter; ``None`` in a
tuning field means "the global setting". Owner and visibility work as a knowledge base's
(private / shared / public); an ``AssistantShare`` row opens a shared assistant to one user.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from core.db.models import new_id, utcnow


class Assistant(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("owner_id", "name", name="uq_assistant_owner_name"),)

    id: str = Field(default_factory=new_id, primary_key=True)
    name: str = Field(index=True)
    description: str = ""
    owner_id: str = Field(index=True)
    visibility: str = "private"  # private | shared | public
    kb_ids: list = Field(default_factory=list, sa_column=Column(JSON))
    mode: str = "strict"  # strict | normal (the global forced-strict policy still wins for plain users)
    strict_min_similarity: float | None = None
    normal_min_similarity: float | None = None
    top_k: int | None = None
    prompt: str = Field(default="", sa_column=Column(Text))  # a RAG template with {{CONTEXT}}; "": the global one
    refusal_text: str = Field(default="", sa_column=Column(Text))  # strict no-hit reply; "": the global one
    # a metadata filter on every question asked through it, in the written form of core/metadata/where.py
    # (revision 0011); None: no filter. Part of the scope: strict mode refuses when nothing inside it answers
    where: dict | None = Field(default=None, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class AssistantShare(SQLModel, table=True):
    assistant_id: str = Field(primary_key=True)
    user_id: str = Field(primary_key=True)
