"""The HTTP reranker against local servers answering as text-embeddings-inference and Cohere
document their /rerank: TEI takes {"query", "texts"}, answers [{"index", "score"}] and refuses more
texts than its --max-client-batch-size (32 by default) with 413 {"error", "error_type"}; Cohere
answers {"results": [{"index", "relevance_score"}]} and errors {"message"}."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

from core.errors import CoreError
from core.retrieval.rerank import HttpReranker

MAX_CLIENT_BATCH = 32
KEY = "rr-secret-key-42"


@contextmanager
def rerank_server(shape: str, status: int = 200, error: Any = None) -> Iterator[tuple[str, list[dict]]]:
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            texts = body.get("texts") if shape == "tei" else body.get("documents")
            if error is not None:
                return self._send(status, error)
            if shape == "tei" and len(texts) > MAX_CLIENT_BATCH:
                return self._send(413, {"error": f"batch size {len(texts)} > maximum allowed batch size "
                                                 f"{MAX_CLIENT_BATCH}", "error_type": "Validation"})
            # a text's score is its number (the trailing digits) over 100: the order can be checked
            ranked = sorted(({"index": i, "score": int(t.split()[-1]) / 100} for i, t in enumerate(texts)),
                            key=lambda r: -r["score"])
            if shape == "tei":
                return self._send(200, ranked)
            return self._send(200, {"id": "r", "results": [{"index": r["index"], "relevance_score": r["score"]}
                                                           for r in ranked], "meta": {}})

        def _send(self, code: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/rerank", seen
    finally:
        server.shutdown()
        server.server_close()


def test_more_texts_than_tei_takes_at_once_are_sent_in_batches():
    texts = [f"passage {i}" for i in range(70)]
    with rerank_server("tei") as (url, seen):
        scores = HttpReranker(url, scores="probabilities").score("q", texts)
    assert scores == pytest.approx([i / 100 for i in range(70)])
    assert [len(b["texts"]) for b in seen] == [32, 32, 6]


def test_cohere_shaped_answers_are_read_too():
    with rerank_server("cohere") as (url, _):
        assert HttpReranker(url, scores="probabilities").score("q", ["a 30", "b 70"]) == pytest.approx([0.3, 0.7])


@pytest.mark.parametrize("shape,error,said", [
    ("tei", {"error": "Input validation error: `inputs` must have less than 512 tokens", "error_type": "Validation"},
     "Input validation error: `inputs` must have less than 512 tokens"),
    ("cohere", {"message": f"invalid api token {KEY}"}, "invalid api token ***"),
])
def test_a_refusal_names_the_host_and_says_the_services_reason(shape, error, said):
    with rerank_server(shape, status=400, error=error) as (url, _):
        with pytest.raises(CoreError) as err:
            HttpReranker(url, api_key=KEY).score("q", ["a 1"])
    assert err.value.message == f"the rerank service at 127.0.0.1 answered HTTP 400: {said}"
