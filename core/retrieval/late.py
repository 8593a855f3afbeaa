"""Late interaction: the best hybrid candidates ranked again by MaxSim over token vectors.

Why: a question's right chunk is nearly always among the first 20 hybrid candidates, but a sibling
chunk of the same paragraph, sharing its words and topic, is often ranked above it; one vector per
chunk and keyword counts cannot tell which sentence answers. Comparing the question's tokens one
by one with the chunk's (each question token's best cosine with a chunk token, averaged: MaxSim,
ColBERT's score, here over the bundled e5's own final-layer token states, no extra weights) can.

At index time (``passage_tokens``) a chunk's token states are pruned (punctuation pieces dropped;
at most ``TOKEN_BUDGET`` tokens, the rarest kept) and stored with the chunk as one multivector in
the vector store (``VectorStore.late_scores``: MaxSim in the engine, over the candidates only; no
index on it, kept on disk). A collection has them when its knowledge base was indexed with
``chunking.token_vectors`` on and an embedder that has token states (``TokenEncoder``); others
simply skip this stage.

At search time (``rerank``, hybrid modes): the first ``retrieval.late_candidates`` hybrid hits get
their MaxSim; their order becomes ``w·z(MaxSim) + (1 − w)·z(hybrid)`` (z: standardised over those
candidates, ``w`` = ``retrieval.late_weight``). Thresholds keep their meaning: the hits that pass
the mode's minimum score are exactly those that passed before, reordered among themselves (and so
are the rest), and each hit takes the score of the place it lands on, so the scores still fall
down the list and the best score is unchanged — strict mode refuses and answers the same questions;
which passages make its top five, and in which order, is what changes. A hit's own hybrid score
stays in ``fused`` and its MaxSim in ``late``.
"""

from __future__ import annotations

import time
import unicodedata
from typing import Protocol

import numpy as np

from core.embeddings.base import TokenEncoder, TokenStates, token_encoder
from core.errors import CoreError
from core.settings.model import RetrievalSettings
from core.vectorstore.base import VectorStore

# Tokens stored per chunk at most (the rarest pieces are kept when a chunk has more): bounds the
# disk a chunk costs. The default 500-character chunks have 48-64 tokens on average after pruning
# (95th percentile ~90); measured in docs/retrieval.md, "Late interaction".
TOKEN_BUDGET = 128


class LateHit(Protocol):
    """What this stage reads and sets on a search hit (``core.retrieval.search.SearchHit``)."""

    chunk_id: str
    kb_id: str
    score: float
    late: float | None


def _is_punctuation(piece: str) -> bool:
    text = piece.replace("\u2581", "")
    return not text or all(unicodedata.category(c)[0] in "PSZ" for c in text)


def passage_tokens(states: TokenStates, budget: int | None = None) -> list[list[float]] | None:
    """The token vectors stored for a chunk: punctuation and bare word-start pieces dropped (they
    match anything), then at most ``budget`` (``TOKEN_BUDGET``) tokens, the rarest first, kept in
    text order. None when nothing is left."""
    budget = TOKEN_BUDGET if budget is None else budget
    keep = [i for i, piece in enumerate(states.pieces) if not _is_punctuation(piece)]
    if len(keep) > budget:
        rarity = states.surprisal if states.surprisal is not None else np.zeros(len(states.pieces))
        keep = sorted(sorted(keep, key=lambda i: -float(rarity[i]))[:budget])
    if not keep:
        return None
    return states.vectors[keep].astype(np.float32).tolist()


def index_token_dimension(embedder: object, wanted: bool) -> int:
    """The token vector size a new index of a knowledge base gets: 0 (none) unless its settings
    want token vectors and the embedder has them."""
    encoder = token_encoder(embedder) if wanted else None
    return int(encoder.token_dimension) if encoder is not None else 0


def rerank(hits: list[LateHit], *, store: VectorStore, embedder: object, cfg: RetrievalSettings,
           collections: dict[str, str], query: str, min_score: float, notices: list[str],
           timings_ms: dict[str, float]) -> list[LateHit]:
    """``hits`` (hybrid-ranked, best first) with their head reordered by late interaction; the
    same list when no searched collection has token vectors. ``collections``: knowledge base id ->
    its searched collection (chat and web collections have no token vectors)."""
    if not cfg.late_interaction or len(hits) < 2:
        return hits
    t0 = time.perf_counter()
    head = hits[: cfg.late_candidates]
    groups: dict[str, list[LateHit]] = {}
    for h in head:
        if h.kb_id in collections:
            groups.setdefault(collections[h.kb_id], []).append(h)
    try:
        sizes = {c: store.token_dimension(c) for c in groups}
        groups = {c: hs for c, hs in groups.items() if sizes[c]}
        if not groups:
            return hits  # no searched index has token vectors: nothing to do, nothing to say
        encoder = token_encoder(embedder)
        if encoder is None:
            notices.append("late-interaction ranking is off: the embedder in use has no token vectors "
                           "(the knowledge base's index has them)")
            return hits
        _score(groups, sizes, store, encoder, query)
    except CoreError as exc:  # the store or the model failed here: the hybrid order stands, and says so
        notices.append(f"late-interaction ranking was skipped: {exc.message}")
        return hits
    finally:
        if groups:
            timings_ms["late"] = (time.perf_counter() - t0) * 1000
    return fused_order(hits, cfg.late_candidates, cfg.late_weight, min_score)


def _score(groups: dict[str, list[LateHit]], sizes: dict[str, int], store: VectorStore, encoder: TokenEncoder,
           query: str) -> None:
    """Set ``late`` (the mean MaxSim over the query's tokens) on each candidate that has token vectors."""
    query_tokens = encoder.query_tokens(query).vectors  # from the pass that embedded the query
    if not len(query_tokens):
        return
    rows = query_tokens.tolist()
    for collection, members in groups.items():
        if sizes[collection] != encoder.token_dimension:
            continue  # built by another token model: its vectors are not comparable
        found = store.late_scores(collection, [h.chunk_id for h in members], rows)
        for h in members:
            total = found.get(h.chunk_id)
            h.late = None if total is None else total / len(rows)


def _standardised(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return (values - values.mean()) / spread if spread > 1e-9 else np.zeros_like(values)


def fused_order(hits: list[LateHit], candidates: int, weight: float, min_score: float) -> list[LateHit]:
    """The head reordered by ``weight·z(late) + (1 − weight)·z(score)``, within the hits at or
    above ``min_score`` and within the rest; scores handed out again in place order (module doc).
    A head hit without a late score (no token vectors stored for it) counts as the head's average."""
    head, tail = hits[:candidates], hits[candidates:]
    known = np.array([h.late for h in head if h.late is not None], dtype=np.float64)
    if len(known) < 2:
        return hits
    late = np.array([h.late if h.late is not None else known.mean() for h in head], dtype=np.float64)
    key = weight * _standardised(late) + (1 - weight) * _standardised(np.array([h.score for h in head]))
    out: list[LateHit] = []
    for members in ([i for i, h in enumerate(head) if h.score >= min_score],
                    [i for i, h in enumerate(head) if h.score < min_score]):
        scores = sorted((head[i].score for i in members), reverse=True)
        ordered = sorted(members, key=lambda i: -key[i])  # stable: ties keep the hybrid order
        for i, score in zip(ordered, scores):
            head[i].score = score
            out.append(head[i])
    return out + tail
