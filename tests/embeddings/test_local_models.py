"""The bundled models, really loaded (slow: each loads in seconds; batches are kept tiny)."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from core.embeddings.factory import LOCAL_MODELS, make_embedder
from core.settings.model import EmbeddingSettings
from tests.conftest import shared_path

pytestmark = pytest.mark.slow

ZH_PASSAGES = [
    "员工每年享有十五天带薪年假，未休完的年假可以顺延至次年三月底。",
    "公司食堂在工作日早上七点到九点供应早餐，午餐从十一点半开始。",
    "季度销售额同比增长百分之十二，主要得益于新产品线的上市。",
]
EN_PASSAGES = [
    "Employees are entitled to fifteen days of paid annual leave; unused days carry over until March.",
    "The staff cafeteria serves breakfast from seven to nine on weekdays.",
    "Quarterly revenue rose twelve percent, driven by the new product line.",
]


@pytest.fixture(scope="module")
def e5():
    return make_embedder(EmbeddingSettings(model="multilingual-e5-small"))


@pytest.fixture(scope="module")
def minilm():
    return make_embedder(EmbeddingSettings(model="all-minilm-l6-v2"))


def _check_unit_rows(vectors: np.ndarray, rows: int, dimension: int) -> None:
    assert vectors.shape == (rows, dimension) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("name", ["multilingual-e5-small", "all-minilm-l6-v2"])
def test_shape_normalisation_and_registry_agree(name, request):
    emb = request.getfixturevalue("e5" if name.startswith("multi") else "minilm")
    assert emb.id == LOCAL_MODELS[name].id and emb.dimension == LOCAL_MODELS[name].dimension == 384
    _check_unit_rows(emb.embed_documents(EN_PASSAGES[:2] + [""]), 3, 384)
    query = emb.embed_query("annual leave")
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
    assert emb.embed_documents([]).shape == (0, 384)
    assert make_embedder(EmbeddingSettings(model=name)) is emb  # loaded once per process


def test_e5_ranks_the_chinese_passage_first(e5):
    passages = e5.embed_documents(ZH_PASSAGES)
    for query, expected in [("年假没休完可以留到明年吗？", 0), ("食堂几点供应早餐", 1), ("销售额增长了多少", 2)]:
        scores = passages @ e5.embed_query(query)
        assert int(np.argmax(scores)) == expected, (query, scores)
        assert scores[expected] > max(np.delete(scores, expected)) + 0.02


def test_e5_works_across_languages(e5):
    scores = e5.embed_documents(ZH_PASSAGES) @ e5.embed_query("How many days of paid annual leave do employees get?")
    assert int(np.argmax(scores)) == 0, scores


def test_e5_applies_query_and_passage_prefixes(e5):
    text = "员工每年享有十五天带薪年假"
    as_query, as_passage = e5.embed_query(text), e5.embed_documents([text])[0]
    similarity = float(as_query @ as_passage)
    # same text, different prefix: close, but not the same vector
    assert 0.8 < similarity < 0.995, similarity


def test_e5_counts_tokens_of_the_text_itself(e5):
    assert e5.count_tokens("") == 0
    short, long = e5.count_tokens("年假"), e5.count_tokens("年假" * 400)
    assert 0 < short <= 2
    assert long > 512  # no truncation at the model window
    a, b = "Employees get paid leave.", "员工享有带薪年假。"
    assert abs(e5.count_tokens(a + " " + b) - (e5.count_tokens(a) + e5.count_tokens(b))) <= 2


def test_minilm_ranks_the_english_passage_first(minilm):
    passages = minilm.embed_documents(EN_PASSAGES)
    for query, expected in [("how much annual leave do I get", 0), ("when is breakfast", 1), ("revenue growth", 2)]:
        scores = passages @ minilm.embed_query(query)
        assert int(np.argmax(scores)) == expected, (query, scores)


def test_minilm_counts_its_own_word_pieces_without_truncation(minilm):
    assert minilm.count_tokens("") == 0
    assert minilm.count_tokens("hello world") == 2
    assert minilm.count_tokens("hello world " * 300) == 600  # beyond the 256-piece window


def test_minilm_concurrent_calls_give_the_same_vectors(minilm):
    expected = minilm.embed_documents(EN_PASSAGES)
    results: list[np.ndarray] = []
    threads = [threading.Thread(target=lambda: results.append(minilm.embed_documents(EN_PASSAGES))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3
    for got in results:
        np.testing.assert_allclose(got, expected, atol=1e-5)


def test_e5_finds_xquad_zh_passages():
    """Real data: five XQuAD-zh questions against their passages and unrelated ones."""
    folder = shared_path("retrieval", "xquad-zh")
    corpus = [json.loads(line) for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:8]]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines())}
    ids = [doc["_id"] for doc in corpus]
    pairs = []
    for line in (folder / "qrels.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc_id, _ = line.split("\t")
        if doc_id in ids and len(pairs) < 5 and all(doc_id != d for _, d in pairs):
            pairs.append((qid, doc_id))
    assert len(pairs) >= 3
    emb = make_embedder(EmbeddingSettings(model="multilingual-e5-small"))
    passages = emb.embed_documents([doc["text"] for doc in corpus])
    for qid, doc_id in pairs:
        assert ids[int(np.argmax(passages @ emb.embed_query(queries[qid])))] == doc_id, queries[qid]
