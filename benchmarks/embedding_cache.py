"""An on-disk embedding cache for benchmarks (never used by the product).

Embedding a shared corpus with e5 takes minutes on this 2-core machine; a benchmark that tries
retrieval candidates which do not change the embedded text should pay that once. Vectors are
stored per model in one SQLite file under /work/cache/embeddings (or $RAGDESK_EMBED_CACHE),
keyed by (model id, kind, sha256 of the text): a passage and a query of the same text are
different e5 inputs ("passage: " / "query: "), so the kind is part of the key. Token states (late
interaction, ``embed_documents_with_tokens`` / ``token_states``) are cached the same way, in float16,
only for an embedder that has them.

    from embedding_cache import install_cache
    install_cache("multilingual-e5-small")   # before the Engine makes its embedder
"""

from __future__ import annotations

import hashlib
import os
import pickle
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
        self._db.execute("CREATE TABLE IF NOT EXISTS tok (key TEXT PRIMARY KEY, v BLOB NOT NULL)")
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

    @property
    def token_dimension(self) -> int:
        # AttributeError for a model without token states: then this wrapper has none either
        # (core.embeddings.base.token_encoder)
        return self.inner.token_dimension

    def _tokens(self, kind: str, texts: list[str], compute) -> list:
        """Cached (vector or None, TokenStates) per text; ``compute(missing texts)`` fills the misses."""
        keys = [self._key(kind, t) for t in texts]
        found: dict[str, tuple] = {}
        with self._lock:
            for i in range(0, len(keys), 200):
                part = keys[i : i + 200]
                rows = self._db.execute(f"SELECT key, v FROM tok WHERE key IN ({','.join('?' * len(part))})", part)
                found.update((k, pickle.loads(v)) for k, v in rows)
        todo = sorted({i for i, k in enumerate(keys) if k not in found}, key=lambda i: keys[i])
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        if todo:
            computed = compute([texts[i] for i in todo])
            with self._lock:
                for i, (vector, states) in zip(todo, computed):
                    packed = (vector, states.pieces, states.vectors.astype(np.float16), states.surprisal)
                    found[keys[i]] = packed
                    self._db.execute("INSERT OR REPLACE INTO tok VALUES (?, ?)", (keys[i], pickle.dumps(packed)))
                self._db.commit()
        from core.embeddings.base import TokenStates

        return [(found[k][0], TokenStates(found[k][1], found[k][2].astype(np.float32), found[k][3])) for k in keys]

    def embed_documents_with_tokens(self, texts: list[str]):
        def compute(missing):
            vectors, states = self.inner.embed_documents_with_tokens(missing)
            return list(zip(np.asarray(vectors, dtype=np.float32), states))

        got = self._tokens("doc+tokens", texts, compute)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32), []
        return np.stack([v for v, _ in got]), [s for _, s in got]

    def query_tokens(self, text: str):
        return self._tokens("query+tokens", [text], lambda missing: [(None, self.inner.query_tokens(t)) for t in missing])[0][1]

    def token_states(self, texts: list[str], kind: str = "passage"):
        return [s for _, s in self._tokens(f"{kind}-tokens", texts,
                                           lambda missing: [(None, s) for s in self.inner.token_states(missing, kind)])]


def install_cache(model_name: str) -> CachingEmbedder:
    """Make the product's embedder factory hand out the cached wrapper for this local model."""
    from core.embeddings import factory

    key, loader = factory._local_loader(model_name)
    with factory._lock:
        current = factory._local_cache.get(key)
        if not isinstance(current, CachingEmbedder):
            current = factory._local_cache[key] = CachingEmbedder(current or loader())
    return current
