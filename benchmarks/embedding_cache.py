"""An on-disk embedding cache for benchmarks (never used by the product).

Embedding a shared corpus with e5 takes minutes on this 2-core machine; a benchmark that tries
retrieval candidates which do not change the embedded text should pay that once. Vectors are
stored per model in one SQLite file under /work/cache/embeddings (or $RAGDESK_EMBED_CACHE),
keyed by (model id, kind, sha256 of the text): a passage and a query of the same text are
different e5 inputs ("passage: " / "query: "), so the kind is part of the key.

    from embedding_cache import install_cache
    install_cache("multilingual-e5-small")   # before the Engine makes its embedder
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path

import numpy as np

CACHE_ROOT = Path(os.environ.get("RAGDESK_EMBED_CACHE", "/work/cache/embeddings"))


class CachingEmbedder:
    """Wraps an embedder; same id, dimension and vectors, computed at most once per text."""

    def __init__(self, inner, root: Path = CACHE_ROOT):
        self.inner = inner
        self.id = inner.id
        self.dimension = inner.dimension
        root.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(root / f"{self.id.replace('/', '__')}.sqlite", check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB NOT NULL)")
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def __getattr__(self, name):  # anything else (host, count_tokens helpers) is the model's
        return getattr(self.inner, name)

    def _key(self, kind: str, text: str) -> str:
        return hashlib.sha256(f"{self.id}\x00{kind}\x00{text}".encode()).hexdigest()

    def _lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                rows = self._db.execute(f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(part))})", part)
                found.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        return found

    def _store(self, pairs: list[tuple[str, np.ndarray]]) -> None:
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)",
                                 [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in pairs])
            self._db.commit()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        keys = [self._key("doc", t) for t in texts]
        found = self._lookup(keys)
        todo = [i for i, k in enumerate(keys) if k not in found]
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        if todo:
            vectors = self.inner.embed_documents([texts[i] for i in todo])
            pairs = [(keys[i], np.asarray(v, dtype=np.float32)) for i, v in zip(todo, vectors)]
            self._store(pairs)
            found.update(pairs)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def embed_query(self, text: str) -> np.ndarray:
        key = self._key("query", text)
        found = self._lookup([key])
        if key in found:
            self.hits += 1
            return found[key]
        self.misses += 1
        vector = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        self._store([(key, vector)])
        return vector

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def install_cache(model_name: str) -> CachingEmbedder:
    """Make the product's embedder factory hand out the cached wrapper for this local model."""
    from core.embeddings import factory

    key, loader = factory._local_loader(model_name)
    with factory._lock:
        current = factory._local_cache.get(key)
        if not isinstance(current, CachingEmbedder):
            current = factory._local_cache[key] = CachingEmbedder(current or loader())
    return current
