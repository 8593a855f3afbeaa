"""Query vectors remembered for a while: the A/B compare embeds every question twice (normal
and strict), a tool call often repeats the question, and a user retries a question."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from core.embeddings.base import Embedder

_SIZE = 256
_cache: "OrderedDict[tuple[str, int, str], np.ndarray]" = OrderedDict()
_lock = threading.Lock()


class CachedQueries:
    """An embedder whose ``embed_query`` remembers recent queries (by embedder id, dimension, text)."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.id = inner.id

    @property
    def dimension(self) -> int:
        # Asked when needed, not when a search function is built: an API client that has not
        # learnt it yet would probe the service then, and a service that is down would fail the
        # whole question instead of only its knowledge-base search.
        return self.inner.dimension

    def embed_query(self, text: str) -> np.ndarray:
        key = (self.id, self.dimension, text)
        with _lock:
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
                return hit
        vector = self.inner.embed_query(text)
        vector.setflags(write=False)  # shared between callers
        with _lock:
            _cache[key] = vector
            while len(_cache) > _SIZE:
                _cache.popitem(last=False)
        return vector

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)
