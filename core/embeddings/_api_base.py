"""Shared behaviour of the HTTP embedders: batching, dimension discovery, vector checks."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from core.embeddings._http import host_of, make_client, to_unit_rows
from core.embeddings.errors import EmbeddingRejected

# Sent once when the dimension is asked for before any real call.
_PROBE_TEXT = "dimension probe"


class ApiEmbedder:
    """Base of the HTTP clients. Subclasses set ``id`` and implement ``_request``."""

    id: str

    def __init__(self, *, base_url: str, model: str, api_key: str = "", batch_size: int = 32, timeout: float = 60.0):
        if not model:
            raise EmbeddingRejected("Embedding model name is empty: set it in the embedding settings.")
        if batch_size < 1:
            raise EmbeddingRejected(f"Embedding batch size must be at least 1 (got {batch_size}).")
        self.model = model
        self.batch_size = batch_size
        self._api_key = api_key
        self._client = make_client(base_url, api_key, timeout)
        self.host = host_of(str(self._client.base_url))
        self._dimension: int | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(id={self.id!r}, host={self.host!r}, batch_size={self.batch_size})"

    @property
    def dimension(self) -> int:
        """Learnt from the first response; asking before any call costs one probe request."""
        if self._dimension is None:
            self.embed_documents([_PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [self._embed_batch(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.vstack(parts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_batch([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)  # the API embeds queries and passages alike, batched

    def count_tokens(self, text: str) -> int:
        """Approximation (the API's tokenizer is not reachable): about 4 characters per token
        for Latin text and one token per CJK character, the usual ratios of BPE vocabularies."""
        cjk = sum(1 for ch in text if _is_cjk(ch))
        return cjk + (len(text) - cjk + 3) // 4

    def close(self) -> None:
        self._client.close()

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        rows = to_unit_rows(self._request(batch), expected=len(batch), host=self.host)
        with self._lock:
            if self._dimension is None:
                self._dimension = int(rows.shape[1])
            elif rows.shape[1] != self._dimension:
                raise EmbeddingRejected(
                    f"Embedding API at {self.host} changed dimension from {self._dimension} to {rows.shape[1]}; "
                    "the server now serves another model (reindex needed if that is intended)."
                )
        return rows

    def _request(self, batch: list[str]) -> list[Any]:
        """Return one vector (list of numbers) per text, in order."""
        raise NotImplementedError


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF or 0xF900 <= code <= 0xFAFF
