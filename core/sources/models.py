"""Tables of synced sources: the source, what of it the knowledge base holds, and the sync log."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Text
from sqlmodel import Field, SQLModel

from core.db.models import new_id, utcnow
from core.secrets.columns import register_encrypted_column


class SyncedSource(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    kind: str = Field(index=True)  # gdrive | web | folder | webdav | a plugin's
    kb_id: str = Field(index=True)
    owner_id: str = Field(index=True)  # the sync runs as this user, with this user's connection
    title: str = ""
    config: dict = Field(default_factory=dict, sa_column=Column(JSON))  # kind-specific: selected ids, URLs
    watch: bool = True  # synced on the schedule (an import without --watch is synced by hand only)
    cursor: str = ""  # where the last successful sync left off (e.g. a Drive changes page token)
    state: str = "ok"  # ok | reconnect | error
    last_error: str = Field(default="", sa_column=Column(Text))
    last_sync_at: datetime | None = None
    lease_owner: str = ""  # who runs a sync of it now; lease_until bounds a crashed holder
    lease_until: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class SourceItemRecord(SQLModel, table=True):
    """One remote item held by the knowledge base, as the file ``file_id``."""

    source_id: str = Field(primary_key=True)
    item_id: str = Field(primary_key=True)
    file_id: str = Field(index=True)
    name: str = ""
    version: str = ""
    # False when the item's content was already in the knowledge base as another file (a duplicate):
    # removing the item then leaves that file alone.
    owns_file: bool = True
    updated_at: datetime = Field(default_factory=utcnow)


class SyncLog(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    source_id: str = Field(index=True)
    kb_id: str = Field(index=True)
    started_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    trigger: str = "manual"  # manual | schedule | import
    status: str = "running"  # running | done | failed | busy | cancelled
    full_listing: bool = False
    added: int = 0
    updated: int = 0
    removed: int = 0
    failed: int = 0
    error: str = Field(default="", sa_column=Column(Text))
    results: list = Field(default_factory=list, sa_column=Column(JSON))  # one dict per item touched


class SourceSecret(SQLModel, table=True):
    """A credential of one source (a WebDAV password), encrypted with the engine's SecretBox.

    Kept apart from ``SyncedSource.config`` so that listings never carry it and the same share
    added again (with a new password) is still the same source."""

    source_id: str = Field(primary_key=True)
    name: str = Field(primary_key=True)
    value: str = Field(default="", sa_column=Column(Text))  # SecretBox-encrypted
    updated_at: datetime = Field(default_factory=utcnow)


# ``python -m core secrets rotate`` re-encrypts it with the new key.
register_encrypted_column(SourceSecret, "value")
