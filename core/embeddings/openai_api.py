"""Any OpenAI-compatible ``/v1/embeddings`` endpoint: OpenAI, vLLM, llama.cpp server, Ollama's /v1, TEI...

``base_url`` is the API root including ``/v1`` (e.g. ``http://127.0.0.1:8000/v1``), as in the
official client. httpx is used directly so that every failure maps to one clear error and no
retry happens behind the caller's back (the ingestion job decides about retries).
"""

from __future__ import annotations

from typing import Any

from core.embeddings._api_base import ApiEmbedder
from core.embeddings._http import post_json
from core.embeddings.base import EmbeddingProvider, register_embedder
from core.embeddings.errors import EmbeddingRejected


class OpenAIEmbedder(ApiEmbedder):
    def __init__(self, *, base_url: str, model: str, api_key: str = "", batch_size: int = 32, timeout: float = 60.0):
        super().__init__(base_url=base_url, model=model, api_key=api_key, batch_size=batch_size, timeout=timeout)
        self.id = f"openai/{model}"

    def _request(self, batch: list[str]) -> list[Any]:
        body = post_json(
            self._client, "embeddings", {"model": self.model, "input": batch, "encoding_format": "float"},
            api_key=self._api_key,
        )
        items = body.get("data") if isinstance(body, dict) else None
        if not isinstance(items, list) or not all(isinstance(it, dict) and "embedding" in it for it in items):
            raise EmbeddingRejected(
                f"Embedding API at {self.host} answered JSON without a 'data' list of embeddings; "
                "is this an OpenAI-compatible /v1 base URL?"
            )
        # the spec gives each item its index; order by it rather than trusting list order
        if all(isinstance(it.get("index"), int) for it in items):
            items = sorted(items, key=lambda it: it["index"])
        return [it["embedding"] for it in items]


def _make(settings, own):
    from core.embeddings.factory import api_embedder

    return api_embedder(settings, OpenAIEmbedder)


register_embedder(EmbeddingProvider("openai", _make))
