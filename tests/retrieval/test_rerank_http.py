"""The HTTP reranker against local servers answering as text-embeddings-inference and Cohere
document their /rerank: TEI takes {"query", "texts"}, answers [{"index", "score"}] and refuses more
texts than its --max-client-batch-size (32 by default) with 413 {"error", "error_type"}; Cohere
answers {"results": [{"index", "relevance_score"}]} and errors {"message"}."""

from __future__ import annotations

import pytest

from core.errors import CoreError
from core.retrieval.rerank import HttpReranker
from tests.fakes.rerank_server import rerank_server

KEY = "rr-secret-key-42"


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
