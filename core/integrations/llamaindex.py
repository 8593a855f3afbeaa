"""A LlamaIndex retriever over a ragdesk knowledge base (``pip install 'ragdesk[llamaindex]'``).

LlamaIndex pipelines (query engines, agents) get ragdesk's hybrid retrieval — dense + BM25, the
reranker, the thresholds and every access rule — instead of a second index of the same files::

    retriever = RagdeskRetriever.over_api("http://127.0.0.1:8600", token, kbs=["handbook"])
    retriever = RagdeskRetriever.over_engine(engine, actor, kbs=["handbook"])   # in-process
    nodes = retriever.retrieve("How many days of annual leave?")

Each hit is a ``TextNode`` whose id is the chunk's id, with its source, page/slide, heading path
and score in the metadata. Strict mode is about answers, not retrieval: a retriever returns hits
and never calls a language model; a pipeline that writes an answer from them is outside
ragdesk's strict guarantee (use ``/api/v1/ask`` or ``/v1/chat/completions`` for strict answers).
"""

from __future__ import annotations

from typing import Any, Callable

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

SearchFn = Callable[[str], list[dict]]

_METADATA = ("file_id", "kb_id", "source_name", "chunk_index", "heading_path", "page", "slide", "start_seconds")


class RagdeskRetriever(BaseRetriever):
    def __init__(self, search: SearchFn, **kwargs: Any):
        self._search = search
        super().__init__(**kwargs)

    @classmethod
    def over_api(cls, base_url: str, token: str, *, kbs: list[str] | None = None, top_k: int | None = None,
                 mode: str | None = None, timeout: float = 60.0, trust_env: bool = True,
                 **kwargs: Any) -> "RagdeskRetriever":
        """Through the HTTP API (``python -m core api``), as the token's user. ``trust_env``: use the
        environment's proxy settings (as httpx does by default)."""
        import httpx

        url = base_url.rstrip("/") + "/api/v1/search"
        headers = {"Authorization": f"Bearer {token}"}

        def search(query: str) -> list[dict]:
            body = {"query": query, "kbs": kbs, "top_k": top_k, "mode": mode}
            with httpx.Client(trust_env=trust_env, timeout=timeout) as http:
                reply = http.post(url, json={k: v for k, v in body.items() if v is not None}, headers=headers)
            if reply.status_code != 200:
                error = reply.json().get("error", {}) if reply.headers.get("content-type", "").startswith("application/json") else {}
                raise RuntimeError(f"ragdesk search failed ({reply.status_code} {error.get('code', '')}): "
                                   f"{error.get('message', reply.text[:200])}")
            return reply.json()["hits"]

        return cls(search, **kwargs)

    @classmethod
    def over_engine(cls, engine: Any, actor: Any, *, kbs: list[str] | None = None, top_k: int | None = None,
                    mode: str | None = None, **kwargs: Any) -> "RagdeskRetriever":
        """On an engine this process holds (``core.Engine``), as ``actor`` (checked by the engine)."""

        def search(query: str) -> list[dict]:
            result = engine.search(actor, query, kbs, mode=mode, top_k=top_k)
            return [_hit_dict(hit) for hit in result.hits]

        return cls(search, **kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes = []
        for hit in self._search(query_bundle.query_str):
            metadata = {key: hit.get(key) for key in _METADATA if hit.get(key) is not None}
            node = TextNode(id_=hit["chunk_id"], text=hit["text"], metadata=metadata)
            nodes.append(NodeWithScore(node=node, score=float(hit["score"])))
        return nodes


def _hit_dict(hit: Any) -> dict:
    return {"chunk_id": hit.chunk_id, "text": hit.text, "score": hit.score,
            **{key: getattr(hit, key, None) for key in _METADATA}}
