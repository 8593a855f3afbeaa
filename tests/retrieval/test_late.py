"""Late interaction (core/retrieval/late.py): token vectors stored at index time, the hybrid head
reordered by MaxSim at search time, on both stores, with the real e5 model; thresholds unchanged."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.embeddings.base import TokenStates
from core.embeddings.fake import HashEmbedder
from core.ingest.service import Upload
from core.retrieval import late
from core.retrieval.search import SearchHit
from core.settings.model import RetrievalSettings
from core.types import SYSTEM_ACTOR as A
from core.vectorstore.edge import EdgeStore
from tests.conftest import shared_path
from tests.engine.conftest import POLICY_MD, make_engine, md
from tests.fakes.qdrant_server import fake_qdrant_server

E5 = {"embedding": {"model": "multilingual-e5-small"}}
# Questions whose hybrid ranking puts a sibling chunk of the same paragraph first (found on the
# shared XQuAD chunk sets); the answer is the chunk named.
SIBLINGS = [
    ("xquad-zh-chunks", "xquad-a009", "维多利亚州将很快失去哪种制造工厂？", "xquad-a009-p02-c0", "xquad-a009-p02-c1"),
    ("xquad-en-chunks", "xquad-a041", "How was the Rhine Gorge formed?", "xquad-a041-p00-c0", "xquad-a041-p00-c1"),
]


def hit(name: str, score: float, late_score: float | None) -> SearchHit:
    return SearchHit(chunk_id=name, file_id="f", kb_id="kb", source_name=name, text=name, chunk_index=0,
                     heading_path=[], score=score, fused=score, late=late_score)


def article(engine, dataset: str, prefix: str) -> None:
    """One XQuAD article's chunks as documents, the way the retrieval benchmark ingests them."""
    path = shared_path("retrieval", dataset, "corpus.jsonl")
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if f'"{prefix}-' in line]
    engine.create_kb(A, "kb")
    results = engine.ingest(A, "kb", [Upload(f"{d['_id']}.md", f"# {d['title']}\n\n{d['text']}".encode()) for d in docs])
    assert all(r.status == "indexed" for r in results)


def first(engine, query: str, **kw) -> list[str]:
    return [h.source_name.removesuffix(".md") for h in engine.search(A, query, ["kb"], **kw).hits]


# ---------------------------------------------------------------- the pieces


def test_stored_tokens_drop_punctuation_and_keep_the_rarest_within_the_budget() -> None:
    pieces = ("\u2581The", ",", "\u2581", "\u2581cat", "。", "\u2581purrs", "308", "%")
    vectors = np.eye(len(pieces), 4 * len(pieces), dtype=np.float32)
    states = TokenStates(pieces, vectors, np.array([1, 9, 9, 5, 9, 7, 6, 9], dtype=np.float32))
    kept = late.passage_tokens(states)
    assert kept == vectors[[0, 3, 5, 6]].tolist()  # the words and the number, in text order
    assert late.passage_tokens(states, budget=2) == vectors[[5, 6]].tolist()  # the two rarest words, in order
    assert late.passage_tokens(TokenStates((",", "\u2581"), vectors[:2])) is None


def test_the_head_is_reordered_but_what_passes_the_threshold_does_not_change() -> None:
    hits = [hit("a", 0.60, 0.50), hit("b", 0.50, 0.90), hit("c", 0.35, 0.20), hit("d", 0.28, 0.95),
            hit("e", 0.20, 0.10), hit("tail", 0.10, None)]
    out = late.fused_order(list(hits), candidates=5, weight=0.8, min_score=0.30)
    assert [h.chunk_id for h in out] == ["b", "a", "c", "d", "e", "tail"]
    # b now leads with the best score; d, the best by tokens, is still below the threshold
    assert [h.score for h in out] == [0.60, 0.50, 0.35, 0.28, 0.20, 0.10]
    assert {h.chunk_id for h in out if h.score >= 0.30} == {"a", "b", "c"}
    assert [h.fused for h in out][:2] == [0.50, 0.60]  # each keeps its own hybrid score
    # fewer than two scored candidates: nothing to compare, the order stands
    lone = [hit("a", 0.6, None), hit("b", 0.5, 0.9)]
    assert late.fused_order(lone, 5, 0.8, 0.3) == lone


def test_an_index_with_token_vectors_and_an_embedder_without_them_is_said(tmp_path) -> None:
    with EdgeStore(tmp_path / "vectors") as store:
        store.create_collection("c", 64, token_dimension=8)
        hits = [hit("a", 0.6, None), hit("b", 0.5, None)]
        notices: list[str] = []
        out = late.rerank(hits, store=store, embedder=HashEmbedder(64), cfg=RetrievalSettings(),
                          collections={"kb": "c"}, query="q", min_score=0.3, notices=notices, timings_ms={})
    assert out == hits and notices and "no token vectors" in notices[0]


# ---------------------------------------------------------------- through the engine, real e5


@pytest.fixture(params=["edge", "qdrant-server"])
def e5_engine(request, data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    if request.param == "edge":
        engine = make_engine(data_dir, **E5)
        yield engine
        engine.close()
        return
    with fake_qdrant_server() as srv:
        monkeypatch.setenv("QDRANT_URL", srv.url)
        engine = make_engine(data_dir, **E5)
        yield engine
        engine.close()


@pytest.mark.parametrize("dataset,prefix,query,answer,sibling", SIBLINGS)
def test_the_answering_sentence_comes_first_on_both_stores(e5_engine, dataset, prefix, query, answer, sibling):
    article(e5_engine, dataset, prefix)
    kb = e5_engine.get_kb(A, "kb")
    assert kb.chunking["token_vectors"] and e5_engine._store.token_dimension(kb.collection) == 384
    e5_engine.save_settings(A, {"retrieval": {"late_interaction": False}})
    assert first(e5_engine, query)[:2] == [sibling, answer]  # hybrid alone: the sibling first
    e5_engine.save_settings(A, {"retrieval": {"late_interaction": True}})
    result = e5_engine.search(A, query, ["kb"])
    assert [h.source_name.removesuffix(".md") for h in result.hits][:2] == [answer, sibling]
    assert all(h.late is not None for h in result.hits) and "late" in result.timings_ms
    assert result.hits[0].late > result.hits[1].late


def test_strict_and_normal_thresholds_pass_the_same_passages(data_dir, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with make_engine(data_dir, **E5) as engine:
        article(engine, *SIBLINGS[0][:2])
        questions = ["维多利亚州将很快失去哪种制造工厂？", "丰田何时表示的将关闭维多利亚工厂？", "墨尔本的人口有多少？", "今天天气怎么样？"]
        for min_score in (0.30, 0.34):
            for q in questions:
                passed = {}
                for on in (False, True):
                    engine.save_settings(A, {"retrieval": {"late_interaction": on}})
                    r = engine.search(A, q, ["kb"], top_k=50, min_score=min_score)
                    passed[on] = ({h.chunk_id for h in r.hits}, max((h.score for h in r.hits), default=None))
                assert passed[True] == passed[False], (q, min_score)


def test_embedders_without_token_states_index_and_search_as_before(engine):
    # hash-64 (the test embedder) has no token vectors: nothing is stored, nothing reordered, nothing said
    assert engine.settings().chunking.token_vectors and engine.settings().retrieval.late_interaction
    engine.create_kb(A, "kb")
    engine.ingest(A, "kb", [md("policy.md", POLICY_MD)])
    assert engine._store.token_dimension(engine.get_kb(A, "kb").collection) == 0
    result = engine.search(A, "一线城市住宿费每人每晚不超过多少？", ["kb"], min_score=0.0)
    assert len(result.hits) > 1 and all(h.late is None for h in result.hits) and not result.notices
    assert "late" not in result.timings_ms


def test_a_knowledge_base_turns_token_vectors_off_and_on_by_reindex(data_dir, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with make_engine(data_dir, **E5) as engine:
        engine.create_kb(A, "kb")
        engine.ingest(A, "kb", [md("policy.md", POLICY_MD)])
        tokens = lambda: engine._store.token_dimension(engine.get_kb(A, "kb").collection)
        assert tokens() == 384
        engine.set_kb_chunking(A, "kb", {"token_vectors": False})
        assert tokens() == 384  # the index in use keeps them until a reindex
        assert engine.reindex(A, "kb").status == "done" and tokens() == 0
        assert engine.get_kb(A, "kb").chunking["token_vectors"] is False
        hits = engine.search(A, "住宿标准", ["kb"]).hits
        assert hits and all(h.late is None for h in hits)
        engine.set_kb_chunking(A, "kb", {"token_vectors": "on"})
        assert engine.reindex(A, "kb").status == "done" and tokens() == 384
        assert all(h.late is not None for h in engine.search(A, "住宿标准", ["kb"]).hits)
