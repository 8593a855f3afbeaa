"""Index a web search's documents into its collection and search them like any knowledge source.

The collection is overwritten (dropped and rebuilt) under its lock, recorded with its creation
time, and searched with the normal retrieval settings and thresholds. Expired web-search
collections are removed on each new search, so they never pile up.

Embedding is the cost: three small pages (~33 chunks) took 65 s with the bundled e5 model on
this busy 2-core machine, 42 s with 24 chunks embedded (benchmarks/web_search_latency.py). So at
most ``web_search_max_indexed_chunks`` (12) chunks are embedded — the ones that best match the
queries by BM25 over the pages' own chunks (ties: earlier in the page first).
"""

from __future__ import annotations

import hashlib
import logging
from concurrent.futures import ThreadPoolExecutor

from core.embeddings.base import Embedder
from core.errors import CoreError, EmbeddingError
from core.ingest.parts import EngineParts, Snapshot
from core.ingest.pipeline import FileTarget, chunk_payload, make_chunks, point_id
from core.retrieval import bm25
from core.retrieval import search as search_mod
from core.retrieval.bm25 import tokenize
from core.retrieval.rerank import Reranker
from core.types import Chunk, VectorPoint
from core.websearch import collections
from core.websearch.flow import IndexAndSearch, WebDocument, WebPassage
from core.websearch.stages import stage

log = logging.getLogger(__name__)

WEB_KB_ID = "web-search"  # the payload's kb_id (the store requires one); no knowledge base has it


def page_id(url: str) -> str:
    return "web-" + hashlib.sha256(url.encode("utf-8")).hexdigest()[:24]


def index_and_search(parts: EngineParts, snap: Snapshot, collection: str, docs: list[WebDocument], queries: list[str], *,
                     top_k: int, min_score: float, reranker: Reranker | None = None) -> list[WebPassage]:
    """Index ``docs`` into ``collection`` (overwritten) and search it with each of ``queries`` (the
    user's message first, then the search queries: a page in another language than the message is
    still found); the best ``top_k`` chunks above ``min_score``.

    The collection is made on a thread while the chunks are embedded: making a shard is disk
    syncs (~0.7 s wall, ~30 ms CPU here), embedding is CPU, so the two overlap."""
    settings, embedder = snap.settings, snap.embedder
    by_id = {page_id(d.url): d for d in docs}
    with stage("chunk"):
        chunked = {file_id: make_chunks(doc.doc, settings.chunking, embedder) for file_id, doc in by_id.items()}
        chunked = preselect(chunked, queries, settings.web_search.web_search_max_indexed_chunks)
    flat = [(FileTarget(file_id, collection, kb_id=WEB_KB_ID), c) for file_id, chunks in chunked.items() for c in chunks]
    ttl = settings.web_search.web_search_collection_ttl_hours
    with collections.collection_lock(collection), ThreadPoolExecutor(1, thread_name_prefix="ragdesk-webcol") as pool:
        made = pool.submit(_fresh_collection, parts, collection, embedder.dimension, ttl)
        try:
            with stage("embed"):
                vectors = _embed(embedder, [c.text for _, c in flat], settings.embedding.batch_size)
        finally:
            with stage("collection"):  # what is left to wait for once the embedding is done
                made.result()
        with stage("store"):
            parts.store.upsert(collection, [VectorPoint(id=point_id(t.file_id, c.index), dense=vec,
                                                        sparse=bm25.encode_document(c.text), payload=chunk_payload(c, t))
                                            for (t, c), vec in zip(flat, vectors)])
            collections.record(parts.db, collection, list(queries), [d.url for d in docs])
        with stage("retrieve"):
            best: dict[str, search_mod.SearchHit] = {}
            target = search_mod.SearchTarget(collection, embedder.id, "web search")
            for query in dict.fromkeys(queries):
                found = search_mod.search(store=parts.store, db=None, embedder=embedder, reranker=reranker,
                                          cfg=settings.retrieval, targets=[target], query=query, top_k=top_k,
                                          min_score=min_score)
                for h in found.hits:
                    if h.chunk_id not in best or h.score > best[h.chunk_id].score:
                        best[h.chunk_id] = h
    hits = sorted(best.values(), key=lambda h: h.score, reverse=True)[:top_k]
    return [WebPassage(by_id[h.file_id].url, by_id[h.file_id].title, h.text, h.score, h.chunk_id)
            for h in hits if h.file_id in by_id]


def _fresh_collection(parts: EngineParts, collection: str, dimension: int, ttl_hours: float) -> None:
    """Expired web-search collections removed, then ``collection`` dropped and made anew (the
    caller holds its lock)."""
    collections.remove_expired(parts.store, parts.db, ttl_hours)
    parts.store.drop_collection(collection)  # overwritten, as in the reference
    parts.store.create_collection(collection, dimension)


def _embed(embedder: Embedder, texts: list[str], batch_size: int) -> list[list[float]]:
    vectors: list[list[float]] = []
    try:
        for start in range(0, len(texts), batch_size):
            batch = texts[start:start + batch_size]
            got = embedder.embed_documents(batch)
            if len(got) != len(batch):
                raise EmbeddingError(f"the embedder returned {len(got)} vectors for {len(batch)} texts")
            vectors.extend([float(x) for x in v] for v in got)
    except CoreError as exc:
        raise EmbeddingError(f"the web pages could not be embedded: {exc.message}") from exc
    except Exception as exc:  # a model failure: the web step fails with a reason, the answer goes on
        log.exception("embedding web pages failed")
        raise EmbeddingError(f"the web pages could not be embedded: unexpected error ({type(exc).__name__})") from exc
    return vectors


def preselect(chunked: dict[str, list[Chunk]], queries: list[str], limit: int) -> dict[str, list[Chunk]]:
    """At most ``limit`` chunks in all, the best BM25 matches for any of ``queries``, in page order."""
    flat = [(file_id, c) for file_id, chunks in chunked.items() for c in chunks]
    if len(flat) <= limit:
        return chunked
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi([tokenize(c.text) or ["\u2205"] for _, c in flat])
    best = [0.0] * len(flat)
    for query in queries:
        for i, score in enumerate(bm25.get_scores(tokenize(query))):
            best[i] = max(best[i], float(score))
    keep = set(sorted(range(len(flat)), key=lambda i: -best[i])[:limit])  # stable: ties keep page order
    out: dict[str, list[Chunk]] = {file_id: [] for file_id in chunked}
    for i, (file_id, chunk) in enumerate(flat):
        if i in keep:
            out[file_id].append(chunk)
    return out


def indexer(parts: EngineParts, snap: Snapshot, *, top_k: int, min_score: float,
            reranker: Reranker | None = None) -> IndexAndSearch:
    """The ``index_and_search`` function the flow takes, bound to the question's snapshot and thresholds."""
    def run(collection: str, docs: list[WebDocument], queries: list[str]) -> list[WebPassage]:
        return index_and_search(parts, snap, collection, docs, queries, top_k=top_k, min_score=min_score,
                                reranker=reranker)

    return run

