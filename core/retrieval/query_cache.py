"""Query vectors remembered for a while: the A/B compare embeds every question twice (normal
and strict), a tool call often repeats the question, and a user retries a question."""

from __future__ import annotations

import numpy as np

from core.embeddings.base import Embedder
from core.lru import Lru

SIZE = 256


def query_vectors() -> "Lru[np.ndarray]":
    """The cache of one engine (its runtime keeps it): another engine's embedder may share an id
    (``openai/<model>`` at another server) and must not get these vectors."""
    return Lru(SIZE)


class CachedQueries:
    """An embedder whose ``embed_query`` remembers recent queries (by embedder id, dimension, text)
    in ``cache``, the engine's own."""

    def __init__(self, inner: Embedder, cache: "Lru[np.ndarray]"):
        self.inner = inner
        self.id = inner.id
        self._cache = cache

    @property
    def dimension(self) -> int:
        # Asked when needed, not when a search function is built: an API client that has not
        # learnt it yet would probe the service then, and a service that is down would fail the
        # whole question instead of only its knowledge-base search.
        return self.inner.dimension

    def embed_query(self, text: str) -> np.ndarray:
        key = (self.id, self.dimension, text)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        vector = self.inner.embed_query(text)
        vector.setflags(write=False)  # shared between callers
        self._cache.put(key, vector)
        return vector

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)
