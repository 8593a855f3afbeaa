"""Hybrid retrieval: dense + BM25 recall in the engine, a weighted fusion of the two calibrated
scores, an optional cross-encoder rerank, one threshold, dedupe, citations.

Every searched collection gets three channel queries with the same filter — dense, BM25 on the
query's words, and BM25 on the query's words translated into the other language (Chinese ↔
English, by a dictionary: ``bilingual.py``) — and all of them go to the store in one batch (``VectorStore.search_batch``: one engine call per
collection, on a server one request per collection sent together; no existence check per
query). The filter keeps only points flagged ``ready`` (their file fully written and marked
indexed), one indexed condition however many files failed, so an unfinished file never takes
a candidate's place. The candidates are the union of both lists; each is scored by
``(w_d * dense + w_b * bm25) / (w_d + w_b)`` on calibrated channel scores (calibration.py); a
passage in the other language than the query's is scored on the translated words' BM25 and
against the off-topic baseline of its own language. In the hybrid modes the head of the ranking
is then reordered by late interaction (MaxSim over stored token vectors, ``late.py``) without
changing which hits pass the threshold.
The engine's RRF fusion is not used: over the same two lists it adds no candidate, and a
rank-only score cannot carry the threshold. With a reranker, its head is rescored and only
the rescored head is kept, so the threshold compares scores of one scale. Nothing is rebuilt
per query and no collection is loaded into Python.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from sqlmodel import select

from core.db.models import FileRecord
from core.embeddings.base import Embedder
from core.errors import ReindexNeeded
from core.metadata.conditions import MetaCondition
from core.notices import language, notice_text
from core.retrieval import bm25, late
from core.retrieval.bilingual import translate_query
from core.retrieval.calibration import (
    ENGLISH_ONLY,
    Baselines,
    calibrate_bm25,
    calibrate_dense,
    margin_for,
    query_baselines,
    script_of_passage,
    script_of_query,
)
from core.retrieval.dedupe import drop_near_duplicates
from core.retrieval.rerank import Reranker
from core.settings.model import RetrievalSettings
from core.types import ChannelQuery, ScoredPoint, SearchFilter
from core.vectorstore.base import VectorStore

MODES = ("dense", "bm25", "hybrid", "hybrid+rerank")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class SearchTarget:
    """One collection to search and the model its vectors came from."""

    collection: str
    embedder_id: str
    label: str  # knowledge base or chat name, for messages
    kb_id: str | None = None
    sparse_encoder: str = ""


@dataclass
class SearchHit:
    chunk_id: str
    file_id: str
    kb_id: str
    source_name: str
    text: str
    chunk_index: int
    heading_path: list[str]
    page: int | None = None
    page_end: int | None = None  # the passage runs on to this page (None: it stays on ``page``)
    slide: int | None = None
    start_seconds: float | None = None
    dense: float | None = None  # raw cosine
    bm25: float | None = None  # raw engine BM25 (IDF-weighted)
    bm25_translated: float | None = None  # raw BM25 of the query's words translated (bilingual.py)
    fused: float | None = None  # weighted hybrid of the calibrated channel scores, before any rerank
    rerank: float | None = None  # cross-encoder / rerank API score, in [0, 1] (rerank.py)
    late: float | None = None  # late interaction: mean MaxSim of the query's tokens, in [-1, 1] (late.py)
    # The calibrated channel scores the hybrid score fused (None: that channel had no say), so
    # answering can tell a match both channels support from one carried by a single channel.
    dense_score: float | None = None
    bm25_score: float | None = None
    score: float = 0.0  # final score in [0, 1] that ranks and meets the threshold
    cross_language: bool = False  # the passage's script is not the query's (Chinese vs other)
    dense_estimated: bool = False  # outside the dense channel's list: ``dense`` is that list's last cosine
    collection: str = ""  # the collection it was found in

    def location(self) -> str:
        """Where the passage is, in English (an interface words it from the fields itself)."""
        if self.page is not None:
            return f"pp. {self.page}–{self.page_end}" if self.page_end else f"p. {self.page}"
        if self.slide is not None:
            return f"slide {self.slide}"
        if self.start_seconds is not None:
            m, s = divmod(int(self.start_seconds), 60)
            return f"{m}:{s:02d}"
        return ""


@dataclass
class SearchResult:
    query: str
    mode: str
    hits: list[SearchHit]
    below_threshold: list[SearchHit] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)  # in the query's language (core/notices.py)
    baseline: float = 0.0  # the query's cosine with generic off-topic text (see calibration.py)


def check_embedder(targets: list[SearchTarget], embedder: Embedder) -> None:
    for t in targets:
        if t.sparse_encoder and t.sparse_encoder != bm25.TOKENIZER_ID:
            raise ReindexNeeded(f"'{t.label}' was indexed with an older keyword tokeniser: reindex it")
        if t.embedder_id and t.embedder_id != embedder.id:
            raise ReindexNeeded(
                f"'{t.label}' was indexed with {t.embedder_id} but the current embedder is {embedder.id}: "
                "reindex it (Knowledge Bases → Reindex, or `python -m core reindex --kb NAME`)"
            )


def search(
    *,
    store: VectorStore,
    db,
    embedder: Embedder,
    reranker: Reranker | None,
    cfg: RetrievalSettings,
    targets: list[SearchTarget],
    query: str,
    mode: str | None = None,
    top_k: int | None = None,
    min_score: float | None = None,
    file_ids: tuple[str, ...] = (),
    where: Mapping[str, tuple[MetaCondition, ...]] | None = None,
) -> SearchResult:
    """``where``: a metadata filter as each knowledge base's conditions (core/metadata/store.py,
    ``resolve_where``), applied inside the engine to every channel's query of that knowledge base;
    a knowledge base it leaves out is not searched. Collections of no knowledge base (a chat's
    files, a web search) are not filtered by it."""
    mode = mode or cfg.mode
    top_k = top_k or cfg.rag_max_results
    min_score = cfg.rag_min_similarity if min_score is None else min_score
    result = SearchResult(query=query, mode=mode, hits=[])
    if not targets or not query.strip():
        return result
    check_embedder(targets, embedder)

    t0 = time.perf_counter()
    dense_q = [float(x) for x in embedder.embed_query(query)] if mode != "bm25" else []
    baselines = query_baselines(embedder, dense_q) if dense_q else Baselines(0.0, {})
    sparse_q = bm25.encode_query(query)
    n_terms = len(sparse_q.indices)
    n_words = bm25.query_word_count(query) or n_terms
    # The query's words in the other language, for passages in it (a dictionary, bilingual.py)
    translation = translate_query(query) if mode.startswith("hybrid") else None  # "bm25": the words as typed
    sparse_x = bm25.encode_query(translation.text) if translation and translation.text else None
    t1 = time.perf_counter()
    result.timings_ms["embed_query"] = (t1 - t0) * 1000
    result.baseline = baselines.overall

    n = cfg.candidates
    candidates: dict[str, SearchHit] = {}
    # db is None for a collection written whole before this search (web search): no flag to wait for
    flt = SearchFilter(file_ids=tuple(file_ids), ready_only=db is not None)
    if where is not None:  # the filter is part of the scope: a knowledge base it leaves out is not searched
        targets = [t for t in targets if not t.kb_id or t.kb_id in where]
    filters = {t.collection: replace(flt, metadata=where[t.kb_id]) if where is not None and t.kb_id else flt
               for t in targets}
    queries: list[ChannelQuery] = []
    for target in targets:
        flt = filters[target.collection]
        if dense_q:
            queries.append(ChannelQuery(target.collection, n, flt, dense=dense_q))
        if n_terms and mode != "dense":
            queries.append(ChannelQuery(target.collection, n, flt, sparse=sparse_q))
        if sparse_x is not None:
            queries.append(ChannelQuery(target.collection, n, flt, sparse=sparse_x))
    found = iter(store.search_batch(queries))
    lists: list[tuple[SearchTarget, list[ScoredPoint], list[ScoredPoint]]] = []
    for target in targets:  # in target order, as the results came (a missing collection gave [])
        dense = next(found) if dense_q else []
        sparse = next(found) if n_terms and mode != "dense" else []
        translated = next(found) if sparse_x is not None else []
        _merge(candidates, dense, "dense", target)
        _merge(candidates, sparse, "bm25", target)
        _merge(candidates, translated, "bm25_translated", target)
        lists.append((target, dense, sparse))
    if dense_q:
        _exact_dense(store, candidates, lists, dense_q, filters)
    for _, dense, sparse in lists:
        _fill_missing(candidates, dense, sparse)
    t2 = time.perf_counter()
    result.timings_ms["recall"] = (t2 - t1) * 1000

    # db=None: a collection written whole before this search (web search), with no file records
    hits = _only_indexed(db, list(candidates.values())) if db is not None else list(candidates.values())
    dense_w, bm25_w = cfg.dense_weight, cfg.bm25_weight
    english_only = embedder.id in ENGLISH_ONLY
    if english_only and _CJK.search(query) and mode.startswith("hybrid"):
        dense_w = 0.0
        result.notices.append(notice_text("search.english_only", language(query), embedder=embedder.id))
    query_script = script_of_query(query)
    for h in hits:
        script = script_of_passage(h.text)
        h.cross_language = script != query_script
        margin = margin_for(embedder.id, query, script)
        # An estimated cosine (the dense list's last) came from passages of either language: it is
        # measured against the higher baseline, or a list of Chinese passages would lift every
        # English one outside it to the top.
        baseline = baselines.highest if h.dense_estimated else baselines.for_passage(script)
        d = calibrate_dense(h.dense, baseline, margin) if h.dense is not None else 0.0
        # Words do not match across languages: a passage in the other language is scored on the
        # query's words translated into its language.
        if h.cross_language and translation:
            b = calibrate_bm25(h.bm25_translated or 0.0, translation.words)
        else:
            b = calibrate_bm25(h.bm25 or 0.0, n_words)
        dense_w_h, bm25_w_h = dense_w, bm25_w
        if mode == "dense":
            h.score = d
        elif mode == "bm25":
            h.score = b
        else:
            h.score = h.fused = (dense_w_h * d + bm25_w_h * b) / (dense_w_h + bm25_w_h)
            h.dense_score, h.bm25_score = (d if dense_w_h else None), (b if bm25_w_h else None)
    hits.sort(key=lambda h: h.score, reverse=True)
    if mode.startswith("hybrid"):  # the head reordered by token vectors where stored; thresholds unchanged
        hits = late.rerank(hits, store=store, embedder=embedder, cfg=cfg, query=query, min_score=min_score,
                           collections={t.kb_id: t.collection for t in targets if t.kb_id},
                           notices=result.notices, timings_ms=result.timings_ms)
    if mode == "hybrid+rerank" and reranker is not None and hits:
        # Only rescored hits stay: a reranker's score and the hybrid score are different scales.
        hits = hits[: max(cfg.reranker.top_n, top_k)]
        scores = reranker.score(query, [h.text for h in hits])
        for h, s in zip(hits, scores):
            h.rerank = h.score = s
        hits.sort(key=lambda h: h.score, reverse=True)
    elif mode == "hybrid+rerank":
        result.notices.append(notice_text("search.no_reranker", language(query)))
    t3 = time.perf_counter()
    result.timings_ms["rerank"] = (t3 - t2) * 1000

    above = drop_near_duplicates([h for h in hits if h.score >= min_score], cfg.dedupe_threshold, top_k)
    result.hits = above
    result.below_threshold = [h for h in hits if h.score < min_score][:top_k]
    for h in result.hits:
        h.text = h.text[: cfg.rag_max_content_chars]
    result.timings_ms["total"] = (time.perf_counter() - t0) * 1000
    return result


def _merge(candidates: dict[str, SearchHit], points: list[ScoredPoint], channel: str, target: SearchTarget) -> None:
    for p in points:
        hit = candidates.get(p.id)
        if hit is None:
            pl = p.payload
            hit = SearchHit(
                chunk_id=p.id, file_id=pl.get("file_id", ""), kb_id=pl.get("kb_id", "") or (target.kb_id or ""),
                source_name=pl.get("source_name", ""), text=pl.get("text", ""), chunk_index=int(pl.get("chunk_index", 0)),
                heading_path=list(pl.get("heading_path") or []), page=pl.get("page"), page_end=pl.get("page_end"),
                slide=pl.get("slide"), start_seconds=pl.get("start_seconds"), collection=target.collection,
            )
            candidates[p.id] = hit
        setattr(hit, channel, float(p.score))


def _exact_dense(store: VectorStore, candidates: dict[str, SearchHit],
                 lists: list[tuple[SearchTarget, list[ScoredPoint], list[ScoredPoint]]], dense_q: list[float],
                 filters: dict[str, SearchFilter]) -> None:
    """The cosine of every candidate the dense list did not hold (found by keywords or by the
    translated keywords), in one more batch restricted to their ids. An estimate from the dense
    list's last score would be wrong across languages: that list holds the query's own language."""
    queries = []
    for target, dense, _ in lists:
        in_dense = {p.id for p in dense}
        ids = tuple(h.chunk_id for h in candidates.values()
                    if h.dense is None and h.chunk_id not in in_dense and h.collection == target.collection)
        if ids:
            flt = filters[target.collection]
            queries.append(ChannelQuery(target.collection, len(ids), replace(flt, point_ids=ids), dense=dense_q))
    if not queries:
        return
    for points in store.search_batch(queries):
        for p in points:
            hit = candidates.get(p.id)
            if hit is not None and hit.dense is None:
                hit.dense = float(p.score)


def _fill_missing(candidates: dict[str, SearchHit], dense: list[ScoredPoint], sparse: list[ScoredPoint]) -> None:
    """A candidate outside one channel's top list scored at most that list's last score there."""
    dense_floor = min((p.score for p in dense), default=None)
    sparse_floor = min((p.score for p in sparse), default=0.0)
    for h in candidates.values():
        if h.dense is None and dense_floor is not None:
            h.dense = float(dense_floor)
            h.dense_estimated = True
        if h.bm25 is None:
            h.bm25 = float(sparse_floor) * 0.5 if sparse else 0.0


def _only_indexed(db, hits: list[SearchHit]) -> list[SearchHit]:
    """Safety net after recall: drop points whose file has no indexed record (a deleted file's
    leftovers, which the doctor removes); unfinished files were never flagged ready in the engine.
    One query on the candidates' ids, bounded by the candidate count."""
    if not hits:
        return hits
    ids = {h.file_id for h in hits}
    with db.read() as s:
        ok = set(s.exec(select(FileRecord.id).where(FileRecord.id.in_(ids), FileRecord.status == "indexed")))
    return [h for h in hits if h.file_id in ok]
