"""Plain data types shared across the engine's packages.

They carry no behaviour beyond small conveniences so every package can depend on them
without depending on each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from core.metadata.conditions import MetaCondition


# ---------------------------------------------------------------- parsing


@dataclass(frozen=True)
class DocPart:
    """A run of extracted Markdown-ish text with the place it came from.

    A PDF page, a slide, a transcript segment, a web page section. Location fields that do
    not apply stay ``None``. Parts are in reading order.
    """

    text: str
    page: int | None = None  # 1-based
    slide: int | None = None  # 1-based
    start_seconds: float | None = None  # transcripts
    heading_path: tuple[str, ...] = ()


@dataclass
class ParsedDoc:
    """What every parser returns."""

    source_name: str  # file name or URL as the user knows it
    mime: str  # detected content type, e.g. "application/pdf", "text/markdown"
    parts: list[DocPart]
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)  # e.g. {"pages": 3, "ocr_pages": [2]}
    warnings: list[str] = field(default_factory=list)  # non-fatal, shown to the admin

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.parts if p.text.strip())

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_name": self.source_name,
            "mime": self.mime,
            "title": self.title,
            "metadata": self.metadata,
            "warnings": self.warnings,
            "parts": [
                {k: v for k, v in vars(p).items() if v not in (None, ())} | {"heading_path": list(p.heading_path)}
                for p in self.parts
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ParsedDoc":
        parts = [
            DocPart(
                text=p["text"],
                page=p.get("page"),
                slide=p.get("slide"),
                start_seconds=p.get("start_seconds"),
                heading_path=tuple(p.get("heading_path", ())),
            )
            for p in data.get("parts", [])
        ]
        return cls(
            source_name=data["source_name"],
            mime=data.get("mime", ""),
            parts=parts,
            title=data.get("title"),
            metadata=dict(data.get("metadata", {})),
            warnings=list(data.get("warnings", [])),
        )


# ---------------------------------------------------------------- chunking


@dataclass
class Chunk:
    """One retrievable piece of a document, ready to embed."""

    text: str
    index: int  # position within its file, 0-based, contiguous
    source_name: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    page_end: int | None = None  # the last page, when the chunk runs on past ``page`` (None otherwise)
    slide: int | None = None
    start_seconds: float | None = None
    merged_count: int = 1  # how many split pieces the min-size merge joined into this chunk
    header_chars: int = 0  # length of the repeated table header that opens ``text`` (0 = none)
    # Title / heading breadcrumb embedded and keyword-indexed before ``text`` but never stored in
    # it (core/chunking/context.py); "" = the text is indexed as it is.
    context: str = ""

    @property
    def indexed_text(self) -> str:
        """What the embedder and BM25 see: the context line, then the chunk's own text."""
        return f"{self.context}\n{self.text}" if self.context else self.text


# ---------------------------------------------------------------- vectors


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@dataclass
class VectorPoint:
    id: str  # UUID string, deterministic per (collection, file, chunk index)
    dense: list[float]
    sparse: SparseVector
    payload: dict[str, Any]
    # The chunk's token vectors (rows of unit floats) for late interaction, only into a collection
    # made with token vectors (core/retrieval/late.py); None or empty: the point has none.
    tokens: list[list[float]] | None = None


@dataclass(frozen=True)
class SearchFilter:
    """Restrict a search. Empty tuples mean no restriction on that field."""

    kb_ids: tuple[str, ...] = ()
    file_ids: tuple[str, ...] = ()
    # Never return points of these files: applied inside the engine, so they cannot take places
    # in the candidate lists. Retrieval no longer uses it (the list grew with every failed file).
    exclude_file_ids: tuple[str, ...] = ()
    # Only points whose payload flag ``ready`` is set (a file fully written and marked indexed,
    # see core/vectorstore/base.py): one indexed condition, whatever the number of unfinished files.
    ready_only: bool = False
    # Only these points (their ids): the exact score of candidates another channel found
    point_ids: tuple[str, ...] = ()
    # Only points whose file's metadata meets every condition (core/metadata/conditions.py)
    metadata: tuple[MetaCondition, ...] = ()


@dataclass(frozen=True)
class ChannelQuery:
    """One channel's search of one collection: a dense (cosine) or a sparse (BM25) query."""

    collection: str
    limit: int
    flt: SearchFilter
    dense: list[float] | None = None  # exactly one of dense / sparse
    sparse: SparseVector | None = None


@dataclass
class ScoredPoint:
    id: str
    score: float
    payload: dict[str, Any]


# ---------------------------------------------------------------- who is asking


Role = Literal["admin", "user"]


@dataclass(frozen=True)
class Actor:
    """The identity every engine call is checked against."""

    user_id: str
    role: Role = "user"
    name: str = ""

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


# The local operator of the CLI: whoever can read the data folder is its owner.
SYSTEM_ACTOR = Actor(user_id="system", role="admin", name="local admin (CLI)")
