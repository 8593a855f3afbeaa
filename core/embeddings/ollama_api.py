"""Ollama's native embedding API: ``POST {base_url}/api/embed`` with a list input.

``base_url`` is the server root (e.g. ``http://127.0.0.1:11434``). Ollama normalises its
vectors already; they are normalised again here so every embedder honours the same contract.
"""

from __future__ import annotations

from typing import Any

from core.embeddings._api_base import ApiEmbedder
from core.embeddings._http import post_json
from core.embeddings.base import EmbeddingProvider, register_embedder
from core.embeddings.errors import EmbeddingRejected


class OllamaEmbedder(ApiEmbedder):
    def __init__(self, *, base_url: str, model: str, api_key: str = "", batch_size: int = 32, timeout: float = 60.0):
        # api_key is only sent when set (an Ollama behind an authenticating proxy)
        super().__init__(base_url=base_url, model=model, api_key=api_key, batch_size=batch_size, timeout=timeout)
        self.id = f"ollama/{model}"

    def _request(self, batch: list[str]) -> list[Any]:
        body = post_json(self._client, "api/embed", {"model": self.model, "input": batch}, api_key=self._api_key)
        vectors = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(vectors, list):
            raise EmbeddingRejected(
                f"Ollama at {self.host} answered JSON without an 'embeddings' list; "
                "is the base URL the Ollama server root (not /v1)?"
            )
        return vectors


def _make(settings, own):
    from core.embeddings.factory import api_embedder

    return api_embedder(settings, OllamaEmbedder)


register_embedder(EmbeddingProvider("ollama", _make))
