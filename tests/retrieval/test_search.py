"""The retrieval pipeline through the engine: channels, fusion, thresholds, dedupe, rerank, filters."""

from __future__ import annotations

import math

import pytest

from core.errors import CoreError, ReindexNeeded
from core.retrieval import bm25
from core.retrieval.calibration import calibrate_bm25, calibrate_dense, margin_for
from core.retrieval.dedupe import drop_near_duplicates
from core.retrieval.search import SearchHit
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md
from tests.fakes.rerank_server import rerank_server as cohere_rerank_server
from tests.retrieval.unfinished import write_unfinished

A = SYSTEM_ACTOR

EXTRA_MD = """# Travel FAQ

## Hotels

Hotel bookings in first-tier cities are capped at 600 yuan per night.

## Trains

Staff travel second class by train; senior managers may travel first class.
"""


@pytest.fixture
def kb(engine):
    engine.create_kb(A, "kb")
    results = engine.ingest(A, "kb", [md("差旅.md", POLICY_MD), md("handbook.md", HANDBOOK_MD), md("faq.md", EXTRA_MD)])
    assert all(r.status == "indexed" for r in results)
    return {r.name: r.file_id for r in results}


def test_every_mode_returns_the_relevant_chunk_with_its_channel_scores(engine, kb):
    for mode in ("dense", "bm25", "hybrid"):
        result = engine.search(A, "remote work days per week", ["kb"], mode=mode, min_score=0)
        top = result.hits[0]
        assert "three days per week" in top.text, mode
        assert 0 <= top.score <= 1
    hybrid = engine.search(A, "remote work days per week", ["kb"], mode="hybrid", min_score=0).hits[0]
    assert hybrid.dense is not None and hybrid.bm25 and hybrid.fused
    assert set(engine.search(A, "x", ["kb"], mode="bm25", min_score=0).timings_ms) >= {"embed_query", "recall", "total"}


def test_threshold_and_top_k_and_char_cap(engine, kb):
    engine.save_settings(A, {"retrieval": {"rag_max_content_chars": 100}})
    result = engine.search(A, "住宿费 一线城市 每晚", ["kb"], top_k=2, min_score=0)
    assert len(result.hits) == 2
    assert all(len(h.text) <= 100 for h in result.hits)
    strict = engine.search(A, "住宿费 一线城市 每晚", ["kb"], min_score=0.999)
    assert strict.hits == [] and strict.below_threshold  # scored, just not good enough


def test_file_filter_restricts_results(engine, kb):
    result = engine.search(A, "travel hotel night", ["kb"], min_score=0, file_ids=(kb["handbook.md"],))
    assert result.hits and {h.file_id for h in result.hits} == {kb["handbook.md"]}


def test_search_across_several_knowledge_bases(engine, kb):
    engine.create_kb(A, "other")
    engine.ingest(A, "other", [md("it.md", "# IT\n\nPasswords rotate every ninety days for all staff accounts.")])
    hits = engine.search(A, "password rotation ninety days", ["kb", "other"], min_score=0).hits
    assert hits[0].source_name == "it.md"
    everywhere = engine.search(A, "password rotation ninety days", min_score=0).hits
    assert everywhere[0].source_name == "it.md"


def test_near_duplicate_chunks_are_shown_once(engine, kb):
    engine.ingest(A, "kb", [md("copy.md", HANDBOOK_MD + "\n")])  # same text, different bytes
    hits = engine.search(A, "laptop monitor headset first day", ["kb"], top_k=10, min_score=0).hits
    texts = [h.text for h in hits if "headset" in h.text]
    assert len(texts) == 1


def test_embedder_change_requires_reindex(engine, kb):
    engine.save_settings(A, {"embedding": {"model": "hash-48"}})
    with pytest.raises(ReindexNeeded, match="hash-64.*hash-48|reindex"):
        engine.search(A, "anything", ["kb"])


def rerank_server(prefer: str, high: float = 0.9, low: float = 0.1):
    """A /rerank endpoint in the Jina/Cohere shape that ranks texts containing ``prefer`` first."""
    return cohere_rerank_server(score=lambda text: high if prefer in text else low)


def test_http_reranker_reorders_candidates(engine, kb):
    with rerank_server(prefer="headset") as (url, seen):
        engine.save_settings(A, {"retrieval": {"reranker": {"kind": "http", "url": url, "scores": "probabilities"}}})
        result = engine.search(A, "what travel rules apply", ["kb"], mode="hybrid+rerank", min_score=0)
    assert seen and seen[0]["query"] == "what travel rules apply"
    assert "headset" in result.hits[0].text and result.hits[0].rerank == pytest.approx(0.9)
    assert result.hits[0].fused is not None and result.hits[0].fused != result.hits[0].score  # hybrid kept for display


def test_reranker_logits_are_squashed_the_same_way_whatever_the_batch(engine, kb):
    """Logits that happen to lie in [0, 1] are still logits: sigmoid(0.8), not 0.8 (no per-batch guess)."""
    for high, low in ((0.8, 0.2), (0.8, -3.0)):
        with rerank_server(prefer="headset", high=high, low=low) as (url, _):
            engine.save_settings(A, {"retrieval": {"reranker": {"kind": "http", "url": url, "scores": "logits"}}})
            top = engine.search(A, "what travel rules apply", ["kb"], mode="hybrid+rerank", min_score=0).hits[0]
        assert "headset" in top.text and top.score == pytest.approx(1 / (1 + math.exp(-0.8)))


def test_probabilities_outside_the_unit_range_are_a_clear_error(engine, kb):
    with rerank_server(prefer="headset", high=4.2) as (url, _):
        engine.save_settings(A, {"retrieval": {"reranker": {"kind": "http", "url": url, "scores": "probabilities"}}})
        with pytest.raises(CoreError, match="outside \\[0, 1\\].*logits"):
            engine.search(A, "what travel rules apply", ["kb"], mode="hybrid+rerank", min_score=0)


def test_with_a_reranker_only_rescored_hits_meet_the_threshold(engine, kb):
    """Hybrid scores of the tail are another scale: they must not be compared with rerank scores."""
    with rerank_server(prefer="headset", high=0.9, low=0.05) as (url, _):
        engine.save_settings(A, {"retrieval": {"reranker": {"kind": "http", "url": url, "scores": "probabilities",
                                                            "top_n": 2}}})
        result = engine.search(A, "what travel rules apply", ["kb"], mode="hybrid+rerank", top_k=2, min_score=0)
    assert 0 < len(result.hits) + len(result.below_threshold) <= 2
    assert all(h.rerank is not None and h.score == h.rerank for h in result.hits + result.below_threshold)


def test_unfinished_files_are_excluded_before_the_candidate_limit(engine, kb):
    """A file mid-ingest must not take the candidates' places and leave the indexed answer out."""
    engine.create_kb(A, "busy")
    [done] = engine.ingest(A, "busy", [md("done.md", "# IT\n\nPasswords rotate every ninety days.")])
    busy = write_unfinished(engine, "busy", "busy.md", "Passwords rotate every ninety days for staff.")
    engine.save_settings(A, {"retrieval": {"candidates": 1}})
    assert engine._store.count(engine.get_kb(A, "busy").collection, file_id=busy) == 1  # its points are there
    hits = engine.search(A, "password rotation ninety days staff", ["busy"], min_score=0).hits
    assert [h.file_id for h in hits] == [done.file_id]


def test_rerank_mode_without_reranker_says_so(engine, kb):
    result = engine.search(A, "hotel", ["kb"], mode="hybrid+rerank", min_score=0)
    assert result.hits and any("no reranker" in n for n in result.notices)


def test_calibration_scores_dense_against_the_query_baseline():
    assert calibrate_dense(0.90, baseline=0.85, margin=0.10) == pytest.approx(0.5)
    assert calibrate_dense(0.80, baseline=0.85, margin=0.10) == 0.0
    assert calibrate_dense(0.99, baseline=0.50, margin=0.10) == 1.0
    assert margin_for("local/all-minilm-l6-v2") > margin_for("local/multilingual-e5-small")
    assert calibrate_bm25(0, 3) == 0.0 and calibrate_bm25(100, 1) > calibrate_bm25(1, 1)


def test_a_greeting_scores_near_zero_while_a_real_question_scores_high(engine, kb):
    greeting = engine.search(A, "hello, thank you", ["kb"], mode="dense", min_score=0)
    question = engine.search(A, "remote work days per week manager approval", ["kb"], mode="dense", min_score=0)
    assert question.hits[0].score > 0.5 > greeting.hits[0].score


def test_dedupe_keeps_the_best_ranked_copy():
    def hit(i, text):
        return SearchHit(chunk_id=str(i), file_id="f", kb_id="k", source_name="s", text=text, chunk_index=i, heading_path=[])

    kept = drop_near_duplicates([hit(0, "alpha beta gamma delta"), hit(1, "alpha beta gamma delta "), hit(2, "something else")], 0.9)
    assert [h.chunk_id for h in kept] == ["0", "2"]


@pytest.mark.slow
def test_an_english_only_model_leaves_chinese_queries_to_keywords(engine):
    """MiniLM's vectors are noise for Chinese: hybrid must not let them reorder keyword hits."""
    engine.save_settings(A, {"embedding": {"model": "all-minilm-l6-v2"}})
    engine.create_kb(A, "zh")
    engine.ingest(A, "zh", [md("差旅.md", POLICY_MD)])
    result = engine.search(A, "一线城市住宿费每晚不超过多少", ["zh"], mode="hybrid", min_score=0)
    assert "六百元" in result.hits[0].text
    assert any("只理解英文" in n for n in result.notices)
    english = engine.search(A, "hotel", ["zh"], mode="hybrid", min_score=0)
    assert not english.notices


def test_e5_margin_depends_on_the_query_script():
    """e5 puts English relevant chunks further above the baseline than Chinese ones (XQuAD)."""
    assert margin_for("local/multilingual-e5-small", "这个规则从什么时候开始施行？") == pytest.approx(0.10)
    assert margin_for("local/multilingual-e5-small", "When does the rule take effect?") == pytest.approx(0.15)


def test_bm25_is_calibrated_per_query_word_not_per_bigram():
    question = "这个规则从什么时候开始施行？"
    words, terms = bm25.query_word_count(question), len(bm25.encode_query(question).indices)
    assert 0 < words < terms  # the recall bigrams (则从, 候开...) are not words
    assert bm25.query_word_count("When does the policy take effect?") == len(
        bm25.encode_query("When does the policy take effect?").indices)  # English: no bigrams


def test_two_embedding_services_serving_one_model_name_each_get_their_own_anchors(tmp_path, monkeypatch):
    """Found when two tests shared a process: the anchors were cached by model name alone, so a
    second service with the same model name but another dimension broke every search."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.ingest.service import Upload
    from core.types import SYSTEM_ACTOR
    from tests.fakes.embedding_server import fake_embedding_server

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    for i, dimension in enumerate((16, 64)):
        data = tmp_path / f"data{i}"
        data.mkdir()
        with fake_embedding_server(dimension=dimension) as emb, Engine(RuntimeConfig.from_env(data)) as engine:
            engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "openai", "base_url": emb.openai_url,
                                                              "model": "fake-embed"}})
            engine.create_kb(SYSTEM_ACTOR, "kb")
            engine.ingest(SYSTEM_ACTOR, "kb", [Upload("a.md", b"# Travel\n\nHotels cost at most 500 per night.")])
            assert engine.search(SYSTEM_ACTOR, "hotel cost per night", ["kb"]).hits
