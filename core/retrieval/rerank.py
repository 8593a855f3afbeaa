"""Optional second-stage rerankers: a local CrossEncoder or an HTTP /rerank API.

No reranker model ships in any installable package, so none is on by default.
Scores are mapped to [0, 1] the way the configuration says (``reranker.scores``): logits always
through a sigmoid, probabilities as they are (a value outside [0, 1] is an error, not a reason to
rescale). The transform never depends on the batch, so a score means the same in every query.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Protocol

import httpx

from core.errors import CoreError, InvalidSettings
from core.parsers.url_transport import service_client
from core.settings.fields import reveal
from core.settings.model import RerankerSettings


class Reranker(Protocol):
    id: str

    def score(self, query: str, texts: list[str]) -> list[float]: ...


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -50 else 0.0


def to_unit_scores(raw: list[float], kind: str, source: str) -> list[float]:
    """A reranker's raw output on the [0, 1] scale the threshold uses, by its configured kind."""
    if kind == "logits":
        return [_sigmoid(v) for v in raw]
    bad = next((v for v in raw if not 0.0 <= v <= 1.0), None)
    if bad is not None:
        raise CoreError(f"{source} returned the score {bad:.4g}, outside [0, 1]: set retrieval.reranker.scores "
                        "to 'logits' for this reranker")
    return list(raw)


class CrossEncoderReranker:
    def __init__(self, model_path: str, scores: str = "logits"):
        path = Path(model_path).expanduser()
        if not path.is_dir():
            raise InvalidSettings(f"reranker model folder not found: {path}")
        from sentence_transformers import CrossEncoder  # heavy: only when configured

        import torch

        self.id = f"cross-encoder/{path.name}"
        self._model = CrossEncoder(str(path), device="cpu")
        self._scores = scores
        # The model's own default activation varies by model card: ask for raw logits, or for
        # probabilities explicitly, so the configured transform is the only one applied.
        self._activation = torch.nn.Identity() if scores == "logits" else torch.nn.Sigmoid()
        self._lock = threading.Lock()

    def score(self, query: str, texts: list[str]) -> list[float]:
        with self._lock:
            raw = self._model.predict([(query, t) for t in texts], show_progress_bar=False,
                                      activation_fn=self._activation)
        return to_unit_scores([float(x) for x in raw], self._scores, "the cross-encoder")


class HttpReranker:
    """POST {url} with {"query", "documents"|"texts", "model"} — TEI, vLLM, llama.cpp, Jina, Cohere shapes.

    At most ``BATCH`` texts a request: text-embeddings-inference refuses more than its
    ``--max-client-batch-size`` (32 by default) with HTTP 413. A score depends on its text alone,
    so batches are scored apart and put back in order."""

    BATCH = 32

    def __init__(self, url: str, api_key: str = "", model: str = "", timeout: float = 30.0, scores: str = "logits"):
        if not url.startswith(("http://", "https://")):
            raise InvalidSettings("reranker URL must start with http:// or https://")
        self.id = f"http/{model or 'rerank'}"
        self._url, self._model, self._scores, self._key = url, model, scores, api_key
        self._host = httpx.URL(url).host
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = service_client(timeout=timeout, headers=headers)  # the URL guard: never link-local/metadata

    def score(self, query: str, texts: list[str]) -> list[float]:
        raw: list[float] = []
        for start in range(0, len(texts), self.BATCH):
            raw += self._score_batch(query, texts[start:start + self.BATCH])
        return to_unit_scores(raw, self._scores, "the rerank service")

    def _score_batch(self, query: str, texts: list[str]) -> list[float]:
        body = {"query": query, "documents": texts, "texts": texts, "top_n": len(texts), "return_documents": False}
        if self._model:
            body["model"] = self._model
        try:
            resp = self._client.post(self._url, json=body)
        except httpx.HTTPError as exc:
            raise CoreError(f"the rerank service at {self._host} is unreachable ({type(exc).__name__})") from None
        if resp.status_code >= 400:
            reason = _rerank_error(resp, self._key)
            raise CoreError(f"the rerank service at {self._host} answered HTTP {resp.status_code}"
                            + (f": {reason}" if reason else ""))
        try:
            data = resp.json()
            items = data["results"] if isinstance(data, dict) else data  # Jina/Cohere/vLLM vs TEI
            scores = [0.0] * len(texts)
            for item in items:
                value = item.get("relevance_score", item.get("score"))
                scores[int(item["index"])] = float(value)
        except (ValueError, KeyError, TypeError, IndexError):
            raise CoreError("the rerank service answered in an unknown format") from None
        return scores


def _rerank_error(resp: httpx.Response, api_key: str) -> str:
    """The reason in a rerank service's error body: TEI ``{"error"}``, Cohere ``{"message"}``,
    Jina/FastAPI ``{"detail"}``, vLLM ``{"error": {"message"}}``; the key removed."""
    try:
        data = resp.json()
    except ValueError:
        return ""
    found = None
    if isinstance(data, dict):
        found = data.get("error") or data.get("message") or data.get("detail")
        if isinstance(found, dict):
            found = found.get("message")
    if not isinstance(found, str):
        return ""
    reason = " ".join(found.split())
    return (reason.replace(api_key, "***") if api_key else reason)[:300]


def make_reranker(cfg: RerankerSettings) -> Reranker | None:
    if cfg.kind == "none":
        return None
    if cfg.kind == "cross-encoder":
        return CrossEncoderReranker(cfg.model_path, cfg.scores)
    return HttpReranker(cfg.url, reveal(cfg.api_key), cfg.model, scores=cfg.scores)
