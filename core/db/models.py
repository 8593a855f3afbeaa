"""Metadata tables. The vector store holds chunks; everything else lives here."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from sqlalchemy import JSON, Column, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def new_id() -> str:
    return uuid.uuid4().hex


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class User(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    name: str = Field(index=True, unique=True)
    password_hash: str = ""
    role: str = "user"  # admin | user
    language: str = "en"  # en | zh
    email: str = ""
    disabled: bool = False  # a disabled account cannot sign in and its sessions are closed
    created_at: datetime = Field(default_factory=utcnow)


class UserSession(SQLModel, table=True):
    """A signed-in browser. The token itself is never stored: only its SHA-256."""

    token_hash: str = Field(primary_key=True)
    user_id: str = Field(index=True)
    client: str = ""  # a hint for the user (browser, address), never used for checks
    created_at: datetime = Field(default_factory=utcnow)
    last_seen_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime  # absolute end, whatever the activity
    revoked_at: datetime | None = None


class SignInThrottle(SQLModel, table=True):
    """Failed sign-ins counted per user name ("name:...") and per client ("client:...")."""

    key: str = Field(primary_key=True)
    failures: int = 0
    window_start: datetime = Field(default_factory=utcnow)
    locked_until: datetime | None = None


class ApiToken(SQLModel, table=True):
    """A personal API token (core/accounts/api_tokens.py). Only the SHA-256 of the token is kept;
    ``prefix`` is its first characters, so its owner can tell tokens apart. Made by revision
    0003_api_tokens."""

    id: str = Field(default_factory=new_id, primary_key=True)
    token_hash: str = Field(index=True, unique=True)
    user_id: str = Field(index=True)
    label: str = ""
    prefix: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime | None = None  # None: until revoked
    last_used_at: datetime | None = None  # written at most once a minute
    revoked_at: datetime | None = None


class KnowledgeBase(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("owner_id", "name", name="uq_kb_owner_name"),)

    id: str = Field(default_factory=new_id, primary_key=True)
    name: str = Field(index=True)
    description: str = ""
    owner_id: str = Field(index=True)
    visibility: str = "private"  # private | shared | public
    full_document: bool = False  # "Using Entire Document": inject whole files instead of chunks
    # The index currently serving search. Reindex builds a new one and switches this atomically.
    collection: str = ""
    collection_version: int = 0
    embedder_id: str = ""
    dimension: int = 0
    sparse_encoder: str = ""  # BM25 tokeniser version: a new one changes term ids, so it needs a reindex
    chunking: dict = Field(default_factory=dict, sa_column=Column(JSON))
    # Its own chunk size / overlap / min-size target (core/ingest/kb_chunking.py); empty = the global ones.
    chunking_override: dict | None = Field(default_factory=dict, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class KBShare(SQLModel, table=True):
    kb_id: str = Field(primary_key=True)
    user_id: str = Field(primary_key=True)


class FileRecord(SQLModel, table=True):
    """An uploaded file in one knowledge base or one chat. Same content twice = two rows in two places."""

    id: str = Field(default_factory=new_id, primary_key=True)
    sha256: str = Field(index=True)
    name: str
    size: int = 0
    mime: str = ""
    owner_id: str = Field(index=True)
    kb_id: str | None = Field(default=None, index=True)
    chat_id: str | None = Field(default=None, index=True)
    # pending -> processing -> indexed | failed | cancelled. Only "indexed" files are searchable.
    status: str = Field(default="pending", index=True)
    error: str = Field(default="", sa_column=Column(Text))
    # The error as a message key and its values (core/messages.py); None on rows older than them.
    error_key: str | None = None
    error_params: dict | None = Field(default=None, sa_column=Column(JSON))
    collection: str = ""  # where its vectors live while status is processing/indexed
    chunk_count: int = 0
    char_count: int = 0
    full_document: bool = False
    # Its points are flagged ``ready`` in its collection (core/ingest/ready.py). None on rows older
    # than the flag: the first start after the upgrade flags their points once.
    searchable: bool | None = False
    meta: dict = Field(default_factory=dict, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Job(SQLModel, table=True):
    """A long operation, and the queue entry of one (core/jobs/): queued rows wait for a worker,
    which claims one (``worker_id``, ``lease_until``) and keeps its lease alive while it runs."""

    id: str = Field(default_factory=new_id, primary_key=True)
    kind: str  # ingest | retry | reindex | sync | gdrive_import | repair (core/jobs/kinds.py)
    owner_id: str = Field(index=True)
    kb_id: str | None = Field(default=None, index=True)
    file_id: str | None = Field(default=None, index=True)
    state: str = Field(default="queued", index=True)  # queued | running | done | failed | cancelled
    progress_done: int = 0
    progress_total: int = 0
    message: str = ""
    # The progress message as a message key and its values (core/messages.py); None when only English.
    message_key: str | None = None
    message_params: dict | None = Field(default=None, sa_column=Column(JSON))
    error: str = Field(default="", sa_column=Column(Text))
    cancel_requested: bool = False
    pid: int = 0  # process running it, so a restart can tell an abandoned job
    host: str = ""
    # The queue (core/jobs/queue.py). ``staged``: its upload is being written, not claimable yet.
    payload: dict | None = Field(default=None, sa_column=Column(JSON))  # what to do, naming data on disk
    blob: str = Field(default="", index=True)  # the uploaded original it names (sha256), kept while it waits
    result: dict | None = Field(default=None, sa_column=Column(JSON))  # what the work returned
    attempts: int = 0  # claims so far; a job whose worker died is queued again up to jobs.max_attempts
    worker_id: str | None = Field(default=None, index=True)
    lease_until: datetime | None = None  # its worker's heartbeat keeps this in the future
    started_at: datetime | None = None
    finished_at: datetime | None = None  # set with ``result`` when the queue closes it
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class LeaderLease(SQLModel, table=True):
    """One holder at a time of a duty shared by every process (the sync scheduler): renewed by
    time, taken over when it expires or its holder's process on this host is gone."""

    name: str = Field(primary_key=True)
    holder: str = ""
    lease_until: datetime = Field(default_factory=utcnow)
    renewed_at: datetime = Field(default_factory=utcnow)


class SettingsVersion(SQLModel, table=True):
    """Each save is a new row; the highest version is in force in every process."""

    version: int = Field(primary_key=True)
    data: dict = Field(sa_column=Column(JSON))
    saved_by: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class Chat(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    owner_id: str = Field(index=True)
    title: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Message(SQLModel, table=True):
    id: str = Field(default_factory=new_id, primary_key=True)
    chat_id: str = Field(index=True)
    role: str  # user | assistant
    content: str = Field(default="", sa_column=Column(Text))
    mode: str = ""  # normal | strict
    hit: bool | None = None
    llm_called: bool | None = None
    citations: list = Field(default_factory=list, sa_column=Column(JSON))
    timings: dict = Field(default_factory=dict, sa_column=Column(JSON))
    flagged: bool = False
    # Added for answering: what was retrieved (chunk ids and scores), notices shown, a provider error.
    retrieved: list = Field(default_factory=list, sa_column=Column(JSON))
    notices: list = Field(default_factory=list, sa_column=Column(JSON))
    error: str = Field(default="", sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow)


class SchemaVersion(SQLModel, table=True):
    id: int = Field(default=1, primary_key=True)
    version: int = 0


class WebSearchCollection(SQLModel, table=True):
    """A vector collection holding the pages of one web search (removed after its TTL)."""

    name: str = Field(primary_key=True)
    queries: list = Field(default_factory=list, sa_column=Column(JSON))
    urls: list = Field(default_factory=list, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow, index=True)
class MessageFeedback(SQLModel, table=True):
    """A user's thumbs up / down on an answer (one per message and user; a new vote replaces it).
    Its own table, so existing databases gain it without altering the message table."""

    message_id: str = Field(primary_key=True)
    user_id: str = Field(primary_key=True)
    rating: int = 0  # +1 helpful, -1 not helpful
    comment: str = Field(default="", sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow)


class CuratedAnswer(SQLModel, table=True):
    """An approved question/answer pair of one knowledge base (core/curated/): a question close
    enough to ``question`` gets ``answer`` verbatim. Its own table, so existing databases gain it
    by its own revision (core/db/migrations) without altering another table. The question's vector lives here
    too (a few hundred floats per row, compared in memory), never in a search collection, so no
    search returns it as a chunk."""

    id: str = Field(default_factory=new_id, primary_key=True)
    kb_id: str = Field(index=True)
    question: str = Field(sa_column=Column(Text))
    answer: str = Field(sa_column=Column(Text))
    approved_by: str = ""  # the approver's user name, as shown on the answer
    approved_at: datetime = Field(default_factory=utcnow)
    created_by: str = ""  # user id of whoever stored it
    embedder_id: str = ""  # the model of ``vector``; another model in force re-embeds the question
    vector: list | None = Field(default=None, sa_column=Column(JSON))
    updated_at: datetime = Field(default_factory=utcnow)


class StoredBlob(SQLModel, table=True):
    """A small original (kind "original", key its SHA-256) or a small parsed text (kind "parsed",
    key its file id) kept as a row instead of a file of its own (core/ingest/blobs.py): creating
    a file costs more than the rest of a one-chunk document's ingestion on some file systems."""

    kind: str = Field(primary_key=True)
    key: str = Field(primary_key=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
