"""Optional second-stage rerankers: a local CrossEncoder or an HTTP /rerank API.

No reranker model ships in any installable package, so none is on by default.
Scores are mapped to [0, 1] (sigmoid for raw logits) so thresholds keep their meaning.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Protocol

import httpx

from core.errors import CoreError, InvalidSettings
from core.settings.model import RerankerSettings


class Reranker(Protocol):
    id: str

    def score(self, query: str, texts: list[str]) -> list[float]: ...


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -50 else 0.0


class CrossEncoderReranker:
    def __init__(self, model_path: str):
        path = Path(model_path).expanduser()
        if not path.is_dir():
            raise InvalidSettings(f"reranker model folder not found: {path}")
        from sentence_transformers import CrossEncoder  # heavy: only when configured

        self.id = f"cross-encoder/{path.name}"
        self._model = CrossEncoder(str(path), device="cpu")
        self._lock = threading.Lock()

    def score(self, query: str, texts: list[str]) -> list[float]:
        with self._lock:
            raw = self._model.predict([(query, t) for t in texts], show_progress_bar=False)
        values = [float(x) for x in raw]
        if any(v < 0 or v > 1 for v in values):
            values = [_sigmoid(v) for v in values]
        return values


class HttpReranker:
    """POST {url} with {"query", "documents"|"texts", "model"} — TEI, vLLM, llama.cpp, Jina, Cohere shapes."""

    def __init__(self, url: str, api_key: str = "", model: str = "", timeout: float = 30.0):
        if not url.startswith(("http://", "https://")):
            raise InvalidSettings("reranker URL must start with http:// or https://")
        self.id = f"http/{model or 'rerank'}"
        self._url, self._model = url, model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)

    def score(self, query: str, texts: list[str]) -> list[float]:
        body = {"query": query, "documents": texts, "texts": texts, "top_n": len(texts), "return_documents": False}
        if self._model:
            body["model"] = self._model
        try:
            resp = self._client.post(self._url, json=body)
        except httpx.HTTPError as exc:
            raise CoreError(f"the rerank service at {httpx.URL(self._url).host} is unreachable ({type(exc).__name__})") from None
        if resp.status_code >= 400:
            raise CoreError(f"the rerank service answered HTTP {resp.status_code}")
        try:
            data = resp.json()
            items = data["results"] if isinstance(data, dict) else data  # Jina/Cohere/vLLM vs TEI
            scores = [0.0] * len(texts)
            for item in items:
                value = item.get("relevance_score", item.get("score"))
                scores[int(item["index"])] = float(value)
        except (ValueError, KeyError, TypeError, IndexError):
            raise CoreError("the rerank service answered in an unknown format") from None
        if any(s < 0 or s > 1 for s in scores):
            scores = [_sigmoid(s) for s in scores]
        return scores


def make_reranker(cfg: RerankerSettings) -> Reranker | None:
    if cfg.kind == "none":
        return None
    if cfg.kind == "cross-encoder":
        return CrossEncoderReranker(cfg.model_path)
    return HttpReranker(cfg.url, cfg.api_key, cfg.model)
