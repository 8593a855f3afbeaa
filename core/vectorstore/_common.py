"""Rules both engines apply the same way, so they behave alike on bad input."""

from __future__ import annotations

import re
import uuid

from core.errors import InvalidInput
from core.types import ChannelQuery, ScoredPoint, SparseVector, VectorPoint

# Reciprocal rank fusion: score = sum over channels of 1 / (RRF_K + rank), rank 0-based.
# 2 is Qdrant's default (the server engine relies on it). Measured against the textbook 60,
# MiniLM + our BM25, prefetch 50, nDCG@10: xquad-zh-chunks 0.783 vs 0.635 (a weak dense channel
# drags less when each channel's top hits dominate), xquad-en-chunks 0.900 vs 0.897
# (benchmarks/rrf_k_eval.py).
RRF_K = 2

# The HNSW search beam of dense queries on indexed segments. Recall against exact search is lost
# in the graph, not in the int8 copies (oversampling 4 instead of 2 changed nothing). Chosen on
# the tune half of the queries at a million chunks, over two builds of the graph below (builds
# differ by ~0.006): 768 reaches 0.99 only at the edge (0.996 and 0.990), 1024 with a margin
# (0.996, 0.994); 512 was enough at 50k (benchmarks/retrieval_scale.py --beams, docs/vectorstore.md).
HNSW_EF = 1024

# The HNSW graph new collections are built with (both engines), denser than Qdrant's default
# (m 16, ef_construct 100): at a million chunks and a beam of 512, recall@10 against exact search
# is 0.986-0.990 with it and 0.921 with the default, for an index build of 464-505 s instead of 159 s
# (benchmarks/retrieval_scale.py --sizes 1000000 --optimize, docs/vectorstore.md).
HNSW_M = 32
HNSW_EF_CONSTRUCT = 256
HNSW_FULL_SCAN_KB = 10_000  # Qdrant's default: below this many KB of vectors a segment is scanned

# Token vectors (late interaction, core/retrieval/late.py) are stored in the engines' 8-bit
# TurboQuant format on disk: 384 bytes a token instead of 768 in float16, the ranking unchanged
# within noise (docs/retrieval.md, "Late interaction"). "float16" is the other choice measured.
TOKEN_STORAGE = "turbo8"

# Safe as a directory name on every filesystem and as a Qdrant collection name.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,119}$")


def check_name(name: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidInput(
            f"Invalid collection name {name!r}: use 1-120 letters, digits, '_' or '-', starting with a letter or digit."
        )


def point_id(raw: str) -> str:
    """The canonical UUID string of a point id (both engines return it in this form)."""
    try:
        return str(uuid.UUID(str(raw)))
    except ValueError as exc:
        raise InvalidInput(f"Point id {raw!r} is not a UUID string.") from exc


def check_points(points: list[VectorPoint], dimension: int) -> None:
    """Reject a batch before any of it is written: wrong size, missing ids in the payload."""
    for p in points:
        point_id(p.id)
        if len(p.dense) != dimension:
            raise InvalidInput(
                f"Point {p.id}: dense vector has {len(p.dense)} dimensions, the collection expects {dimension}."
            )
        if len(p.sparse.indices) != len(p.sparse.values):
            raise InvalidInput(f"Point {p.id}: sparse vector indices and values differ in length.")
        for key in ("file_id", "kb_id"):
            if not isinstance(p.payload.get(key), str) or not p.payload[key]:
                raise InvalidInput(f"Point {p.id}: payload needs a non-empty string {key!r}.")


def check_tokens(points: list[VectorPoint], token_dimension: int) -> None:
    """Token vectors only into a collection made for them, each row of its size."""
    for p in points:
        if not p.tokens:
            continue
        if not token_dimension:
            raise InvalidInput(f"Point {p.id}: the collection has no token vectors.")
        if any(len(row) != token_dimension for row in p.tokens):
            raise InvalidInput(f"Point {p.id}: token vectors must have {token_dimension} dimensions.")


def check_late_query(tokens: list[list[float]], token_dimension: int) -> None:
    if not tokens or any(len(row) != token_dimension for row in tokens):
        raise InvalidInput(f"Query token vectors must be one or more rows of {token_dimension} dimensions.")


def check_query(dense: list[float] | None, dimension: int) -> None:
    if dense is not None and len(dense) != dimension:
        raise InvalidInput(f"Query vector has {len(dense)} dimensions, the collection expects {dimension}.")


def is_empty(sparse: SparseVector) -> bool:
    """A query of stopwords only has no terms: it matches nothing (no engine call needed)."""
    return not sparse.indices


def in_chunk_order(points: list[ScoredPoint]) -> list[ScoredPoint]:
    """A file's points by ``chunk_index`` (ties, which should not happen, by id)."""
    return sorted(points, key=lambda p: (int(p.payload.get("chunk_index", 0)), p.id))


def by_collection(queries: list[ChannelQuery]) -> dict[str, list[int]]:
    """Positions of a batch's queries grouped by collection, in first-seen order."""
    groups: dict[str, list[int]] = {}
    for i, q in enumerate(queries):
        check_name(q.collection)
        if (q.dense is None) == (q.sparse is None):
            raise InvalidInput("A channel query needs exactly one of a dense or a sparse vector.")
        groups.setdefault(q.collection, []).append(i)
    return groups


# Files flagged per update: a large reindex or migration does not send one giant filter.
_READY_BATCH = 256


def ready_batches(file_ids: list[str]) -> list[list[str]]:
    ids = sorted(set(file_ids))
    return [ids[i : i + _READY_BATCH] for i in range(0, len(ids), _READY_BATCH)]
