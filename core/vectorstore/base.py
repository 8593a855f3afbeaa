"""The vector store facade: one protocol, two engines (embedded qdrant-edge, Qdrant server).

A *collection* holds the chunks of one knowledge base index (or of one chat's files). Every
point carries a dense vector named ``dense`` and a BM25 sparse vector named ``bm25`` (IDF
applied by the engine), plus a payload with at least: ``file_id``, ``kb_id``,
``chunk_index``, ``text``, ``heading_path``, ``source_name`` and, where known, ``page``,
``slide``, ``start_seconds``.

A collection made with ``token_dimension`` also holds, per point, the chunk's token vectors as
one multivector named ``late`` (``TOKENS``): compared by MaxSim, never searched through an
index (no HNSW graph: it only rescores candidates by id, ``late_scores``), stored on disk.

The payload flag ``ready`` (``READY`` = 1, else 0 or absent) says a point's file is fully
written and marked indexed: ingest writes its points with 0 and sets 1 after the commit that
marks the file indexed (``mark_ready``); retrieval searches with ``SearchFilter(ready_only=True)``,
a ``must`` on that indexed flag. So a half-written, failed or cancelled file is never visible,
and the filter stays one condition however many such files there are. It is an integer, not a
bool: qdrant-edge 0.9.0's Python binding turns ``True`` in a match condition into ``1`` and then
matches no stored ``true`` (checked), so a bool flag could not be searched on the embedded engine.
"""

from __future__ import annotations

import os
from typing import Protocol

from core.types import (
    ChannelQuery,
    ScoredPoint,
    SearchFilter,
    SparseVector,
    VectorPoint,
)

DENSE = "dense"
SPARSE = "bm25"
TOKENS = "late"  # the token multivector (late interaction), in collections made with token vectors

# Every collection ragdesk makes starts with this, so a shared Qdrant server's other
# collections are never touched (the doctor only judges names with this prefix). Two
# installations sharing one server set different prefixes.
# Read when a name is made, not at import: a process that sets it later (a test, a second
# installation's worker) is not stuck with the first value it imported.
def collection_prefix() -> str:
    return os.environ.get("RAGDESK_COLLECTION_PREFIX", "ragdesk_")


def kb_collection(kb_id: str, version: int) -> str:
    return f"{collection_prefix()}kb_{kb_id}_v{version}"


def kb_collection_prefix(kb_id: str) -> str:
    """Every index of a knowledge base, the serving one and any unfinished reindex."""
    return f"{collection_prefix()}kb_{kb_id}_"


def chat_collection(chat_id: str) -> str:
    return f"{collection_prefix()}chat_{chat_id}"


def is_ours(name: str) -> bool:
    return name.startswith(collection_prefix())


# Payload keys that get a keyword index (filters on them must stay fast at 100k points).
INDEXED_KEYWORDS = ("file_id", "kb_id")
# The readiness flag (see the module doc) and its integer index.
READY_KEY = "ready"
READY = 1
NOT_READY = 0


class VectorStore(Protocol):
    """Implemented by ``EdgeStore`` (embedded default) and ``QdrantServerStore``."""

    def create_collection(self, name: str, dimension: int, token_dimension: int = 0) -> None:
        """Create an empty collection (dense cosine + sparse IDF, and with ``token_dimension`` > 0 a
        token multivector of that size). Error if it exists."""

    def drop_collection(self, name: str) -> None:
        """Remove a collection and its files. No error if missing."""

    def collection_exists(self, name: str) -> bool: ...

    def list_collections(self) -> list[str]: ...

    def dimension(self, name: str) -> int: ...

    def token_dimension(self, name: str) -> int:
        """The size of the collection's token vectors, 0 when it has none (cached, like existence)."""

    def upsert(self, name: str, points: list[VectorPoint]) -> None:
        """Insert or replace points; durable when this returns."""

    def delete_file(self, name: str, file_id: str) -> None:
        """Delete every point whose payload ``file_id`` matches."""

    def delete_points(self, name: str, ids: list[str]) -> None:
        """Delete these points (a chunk disabled by hand); ids not present: nothing."""

    def count(self, name: str, file_id: str | None = None) -> int:
        """Exact count of points (of one file when given)."""

    def file_ids(self, name: str) -> dict[str, int]:
        """Every ``file_id`` present in the collection with its point count (for the doctor)."""

    def search_dense(self, name: str, vector: list[float], limit: int, flt: SearchFilter) -> list[ScoredPoint]:
        """Cosine similarity, best first."""

    def search_sparse(self, name: str, vector: SparseVector, limit: int, flt: SearchFilter) -> list[ScoredPoint]:
        """BM25 (dot product of IDF-weighted sparse vectors), best first."""

    def search_hybrid(
        self,
        name: str,
        dense: list[float],
        sparse: SparseVector,
        limit: int,
        flt: SearchFilter,
        prefetch_limit: int,
    ) -> list[ScoredPoint]:
        """Both channels prefetched and fused by RRF inside the engine, best first."""

    def search_batch(self, queries: list[ChannelQuery]) -> list[list[ScoredPoint]]:
        """Every query (any collections, both channels) in the fewest engine calls: one batch per
        collection (on a server, one request per collection, sent together). One result list per
        query, in order; a collection that does not exist answers ``[]`` (no existence call per
        query: existence is cached, and a miss is checked again)."""

    def late_scores(self, name: str, ids: list[str], tokens: list[list[float]]) -> dict[str, float]:
        """MaxSim of the query's token vectors against these points' (the sum over query tokens of
        the best cosine with a point's token), computed in the engine; a point without token
        vectors, or missing, is left out. A collection without token vectors answers ``{}``."""

    def mark_ready(self, name: str, file_ids: list[str]) -> None:
        """Set ``ready`` on every point of these files (idempotent; missing points: nothing)."""

    def unready_file_ids(self, name: str) -> dict[str, int]:
        """Files with points whose ``ready`` flag is not set, with their counts (old collections
        written before the flag existed list every file)."""

    def ensure_ready_index(self, name: str) -> None:
        """Create the ``ready`` payload index on a collection made before it existed (idempotent)."""

    def set_file_metadata(self, name: str, values_by_file: dict[str, dict], indexes: dict[str, str]) -> None:
        """Replace the ``meta`` payload object of every point of each file (core/metadata/conditions.py),
        no vector touched, after creating the payload indexes (path -> kind) the collection lacks."""

    def scroll_file(self, name: str, file_id: str) -> list[ScoredPoint]:
        """All points of one file ordered by ``chunk_index`` (score 0), for the chunk inspector."""

    def close(self) -> None: ...
