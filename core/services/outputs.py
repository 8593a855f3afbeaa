"""The services' typed outputs (pydantic), which every surface shows: the HTTP API, MCP, the CLI's
JSON. They live with the services, and core/api imports them, not the reverse. Outputs say only
what a caller may see: no owner ids of other users' rows, no collection names, no secrets."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, field_validator

Mode = Literal["normal", "strict"]


class Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class Empty(BaseModel):
    model_config = ConfigDict(extra="forbid")


class In(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is a 422, not silently ignored


# ---------------------------------------------------------------- knowledge bases

class KbRef(In):
    kb: str = Field(description="the knowledge base's id or name")


class KbCreate(In):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    visibility: Literal["private", "shared", "public"] = "private"


class KbShare(In):
    kb: str
    users: list[str] = Field(description="the user names it is shared with (replaces the list)")


class KbOut(Out):
    id: str
    name: str
    description: str
    visibility: str
    embedder_id: str
    dimension: int
    created_at: datetime
    updated_at: datetime


class KbDetail(KbOut):
    files: int = 0
    chunks: int = 0
    vectors: int = 0


class Deleted(Out):
    deleted: str


class Shared(Out):
    kb: str
    shared_with: list[str]


class KbSharing(Out):
    """A knowledge base's sharing as the CLI prints it (kb share, unshare, shared)."""

    kb: str  # its name
    visibility: str
    shared_with: list[str]  # user names, sorted


# ---------------------------------------------------------------- files and jobs

class FileList(In):
    kb: str
    status: Literal["pending", "processing", "indexed", "failed", "cancelled"] | None = None


class FileRef(In):
    file_id: str


class StagedFile(In):
    """A part of a multipart upload, already written by the API to its private upload folder."""

    name: str
    path: str


class FileUpload(In):
    kb: str
    files: list[StagedFile] = Field(default_factory=list, description="filled by the server from the multipart body")


class FileOut(Out):
    id: str
    name: str
    size: int
    mime: str
    kb_id: str | None
    status: str
    error: str
    chunk_count: int
    created_at: datetime
    updated_at: datetime


class IngestOut(Out):
    name: str
    status: str  # indexed | duplicate | failed | cancelled | deleted
    file_id: str | None = None
    chunks: int = 0
    error: str = ""
    job_id: str | None = None
    warnings: list[str] = []


class UploadJobOut(Out):
    """One file of an upload and its job."""

    job_id: str
    name: str
    state: str  # queued | running | done | failed | cancelled
    progress_done: int = 0
    progress_total: int = 0
    message: str = ""
    error: str = ""


class UploadOut(Out):
    """An upload's files: their jobs now, and each file's result once every job has finished."""

    done: bool
    jobs: list[UploadJobOut]
    results: list[IngestOut] = []


class JobList(In):
    active_only: bool = False


class JobRef(In):
    job_id: str


class JobOut(Out):
    id: str
    kind: str
    kb_id: str | None
    file_id: str | None
    state: str
    progress_done: int
    progress_total: int
    message: str
    error: str
    cancel_requested: bool
    created_at: datetime
    updated_at: datetime


class Limits(Out):
    max_upload_mb: int
    max_files_per_upload: int


# ---------------------------------------------------------------- search and answers

class SearchIn(In):
    query: str = Field(min_length=1)
    kbs: list[str] | None = Field(None, description="ids or names; omitted: every knowledge base you may read")
    mode: Literal["dense", "bm25", "hybrid", "hybrid+rerank"] | None = None
    top_k: int | None = Field(None, ge=1)
    min_score: float | None = Field(None, ge=0, le=1)


class HitOut(Out):
    chunk_id: str
    file_id: str
    kb_id: str
    source_name: str
    text: str
    chunk_index: int
    heading_path: list[str]
    page: int | None = None
    slide: int | None = None
    start_seconds: float | None = None
    location: str = ""  # where in the file, in words ("p. 3", "pp. 3–4", "slide 2", "1:05")
    score: float

    @field_validator("location", mode="before")
    @classmethod
    def _located(cls, value):  # read from a SearchHit, ``location`` is its method
        return value() if callable(value) else value


class SearchOut(Out):
    query: str
    mode: str
    hits: list[HitOut]
    notices: list[str] = []


class AskIn(In):
    question: str = Field(min_length=1)
    kbs: list[str] | None = Field(None, description="ids or names; omitted: every knowledge base you may read")
    mode: Mode | None = Field(None, description="omitted: the mode in force; with strict mode on, "
                                                "only admins get a normal answer")
    web: bool = Field(False, description="the chat's Web search switch (normal mode only, when enabled)")


class ChatAskIn(AskIn):
    chat_id: str


class CitationOut(Out):
    n: int
    chunk_id: str
    file_id: str
    kb_id: str = ""
    source_name: str
    location: str
    heading_path: list[str]
    text: str
    score: float
    page: int | None = None
    slide: int | None = None
    start_seconds: float | None = None
    origin: str = "kb"
    url: str = ""


class AnswerOut(Out):
    question: str
    text: str
    mode: Mode
    hit: bool
    llm_called: bool
    from_kb: bool
    citations: list[CitationOut]
    notices: list[str]
    sources: list[str]
    chat_id: str | None = None
    message_id: str | None = None
    error: str = ""


# ---------------------------------------------------------------- chats

class ChatList(In):
    query: str = ""


class ChatCreate(In):
    title: str = ""


class ChatRef(In):
    chat_id: str


class ChatOut(Out):
    id: str
    title: str
    created_at: datetime
    updated_at: datetime


class MessageOut(Out):
    id: str
    chat_id: str
    role: str
    content: str
    mode: str
    citations: list[dict]
    notices: list[str]
    error: str
    created_at: datetime


# ---------------------------------------------------------------- the CLI's own rows

# The CLI's JSON has always printed a time as str() does ("2026-12-05 17:05:24.123456+00:00", a space,
# not the "T" of ISO 8601 that the API prints): its rows keep that shape.
CliTime = Annotated[datetime, PlainSerializer(str, return_type=str, when_used="json")]


class ChatRow(Out):
    """A chat in ``chats list``: whose it is too (the CLI looks through every user's)."""

    id: str
    title: str
    owner: str
    updated_at: CliTime


class ChatMessageRow(Out):
    role: str
    content: str
    mode: str
    hit: bool | None
    llm_called: bool | None
    citations: list[dict]
    notices: list[str]
    created_at: CliTime


class ChatShown(Out):
    """A chat in ``chats show``: its owner and its messages in order."""

    id: str
    title: str
    owner: str
    messages: list[ChatMessageRow]


class DoctorOut(BaseModel):
    """What ``python -m core doctor`` prints: every field of the doctor's report
    (core/doctor.py: DoctorReport), then whether it is healthy (its shape is kept across releases)."""

    model_config = ConfigDict(from_attributes=True)
    orphan_collections: list[str]
    orphan_vectors: dict[str, int]
    missing_vectors: list[str]
    interrupted_files: list[str]
    orphan_blobs: list[str]
    orphan_parsed: list[str]
    missing_collections: list[str]
    unready_files: list[str]
    expired_web_collections: list[str]
    retry_originals: list[str]
    repaired: bool
    notes: list[str]
    healthy: bool


class JobRow(BaseModel):
    """A job in ``jobs list``, ``wait`` and ``cancel`` (its shape is kept across releases)."""

    id: str
    kind: str
    state: str
    kb_id: str | None
    done: int
    total: int
    message: str
    error: str
    updated_at: CliTime


class JobDetail(JobRow):
    """A job in ``jobs show``: its row, the name it works on, its worker and times, its result."""

    name: str
    file_id: str | None
    attempts: int
    worker_id: str | None
    cancel_requested: bool
    created_at: CliTime
    started_at: CliTime | None
    finished_at: CliTime | None
    result: dict | None


class JobsWaited(BaseModel):
    finished: bool  # False: the timeout came first
    jobs: list[JobRow]


# ---------------------------------------------------------------- accounts and API tokens (``users``, ``tokens``)

class UserRow(Out):
    """An account as ``users`` prints it: never the password hash."""

    id: str
    name: str
    role: str
    disabled: bool
    email: str
    language: str
    created_at: CliTime | None


class SessionsEnded(BaseModel):
    name: str  # as it was typed
    sessions_ended: int


class TokenMade(Out):
    """A token just made (``tokens create``): ``token`` is the secret, printed this once."""

    id: str
    token: str
    user: str = Field(validation_alias="user_name")
    label: str
    prefix: str
    created_at: CliTime
    expires_at: CliTime | None


class TokenRow(Out):
    """A token as ``tokens list`` prints it: its prefix, never the secret nor its hash."""

    id: str
    user: str = Field(validation_alias="user_name")
    label: str
    prefix: str
    created_at: CliTime
    expires_at: CliTime | None
    last_used_at: CliTime | None


class Revoked(BaseModel):
    revoked: str  # the token's id
