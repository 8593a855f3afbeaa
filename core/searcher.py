"""The one search function: ``Engine.search``, answering, its tools and the A/B compare call it.

A ``Searcher`` is built once per operation from one settings snapshot (a query on the
retrieval-test page, a question with its tool calls): the embedder, the reranker and the
retrieval settings it uses cannot change half-way through that operation.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Callable

import numpy as np

from core.lru import Lru
from core.metadata.conditions import MetaCondition
from core.retrieval.query_cache import CachedQueries
from core.db.database import Database
from core.embeddings.base import Embedder
from core.errors import InvalidInput
from core.retrieval import search as search_mod
from core.retrieval.rerank import Reranker
from core.settings.model import Settings
from core.vectorstore.base import VectorStore


@dataclass(frozen=True)
class Searcher:
    store: VectorStore
    db: Database
    settings: Settings
    embedder: Embedder
    reranker: Callable[[], Reranker | None]  # built on first use, in hybrid+rerank mode only
    # A metadata filter every search of this operation applies (core/metadata/store.py, resolve_where):
    # answering gets a searcher bound to the question's filter, so each of its searches and tools obeys it.
    where: Mapping[str, tuple[MetaCondition, ...]] | None = None

    @classmethod
    def build(cls, store: VectorStore, db: Database, settings: Settings, embedder: Embedder,
              reranker: Callable[[], Reranker | None], query_vectors: "Lru[np.ndarray]") -> "Searcher":
        # Query vectors are remembered across searches (in the engine's own cache): compare embeds
        # each question once for both modes, a tool call often repeats the question.
        return cls(store, db, settings, CachedQueries(embedder, query_vectors), reranker)

    def __call__(self, query: str, targets: list[search_mod.SearchTarget], *, mode: str | None = None,
                 top_k: int | None = None, min_score: float | None = None,
                 file_ids: tuple[str, ...] = ()) -> search_mod.SearchResult:
        if mode is not None and mode not in search_mod.MODES:
            raise InvalidInput(f"mode must be one of {', '.join(search_mod.MODES)}")
        cfg = self.settings.retrieval
        return search_mod.search(
            store=self.store, db=self.db, embedder=self.embedder,
            reranker=self.reranker() if (mode or cfg.mode) == "hybrid+rerank" else None,
            cfg=cfg, targets=targets, query=query, mode=mode, top_k=top_k, min_score=min_score,
            file_ids=tuple(file_ids), where=self.where,
        )
