"""The embedder protocol.

Vectors are L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class Embedder(Protocol):
    # Stable identifier recorded with every knowledge base, e.g. "local/multilingual-e5-small".
    # Querying a knowledge base with an embedder of another id is refused ("reindex needed").
    id: str
    dimension: int

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Embed passages for storage; shape (len(texts), dimension)."""

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query; shape (dimension,)."""

    def count_tokens(self, text: str) -> int:
        """Length in the model's own tokens (token-based chunking)."""


@dataclass(frozen=True)
class EmbeddingProvider:
    """An ``embedding.provider`` plugin: ``make(embedding_settings, own_settings)`` returns the
    embedder (``own_settings``: an instance of ``settings`` from ``embedding.providers.<name>``)."""

    name: str
    make: Callable[[Any, Any], Embedder]
    settings: type | None = None


def register_embedder(provider: EmbeddingProvider) -> EmbeddingProvider:
    from core.plugins import EMBEDDING_PROVIDERS

    return EMBEDDING_PROVIDERS.register(provider.name, provider)
