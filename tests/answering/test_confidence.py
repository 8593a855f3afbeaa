"""Normal mode's weak-match signal (core/answering/confidence.py) on the scores of one passage:
both channels must support a match, and the best score must clear the threshold by a margin."""

from __future__ import annotations

import pytest

from core.answering.confidence import WEAK_MARGIN, match_strength, says_weak, weak_notice
from core.retrieval.search import SearchHit

THRESHOLD = 0.30


def hit(score: float, dense: float | None, bm25: float | None, rerank: float | None = None) -> SearchHit:
    return SearchHit(chunk_id="c", file_id="f", kb_id="k", source_name="s.md", text="t", chunk_index=0, heading_path=[],
                     score=score, dense_score=dense, bm25_score=bm25, rerank=rerank)


@pytest.mark.parametrize(("best", "weak", "reason"), [
    # the demo's "What is the capital of Australia?" on the hotel table: the word "capital" alone
    (hit(0.315, dense=0.275, bm25=0.374), True, "words_only"),
    # an off-topic policy question close in meaning, none of its words in the passage
    (hit(0.33, dense=0.417, bm25=0.199), True, "meaning_only"),
    (hit(THRESHOLD + WEAK_MARGIN / 2, dense=0.33, bm25=0.33), True, "near_threshold"),
    (hit(0.31, dense=None, bm25=None, rerank=0.31), True, "near_threshold"),  # reranked: the margin alone
    (hit(0.409, dense=0.365, bm25=0.476), False, ""),  # the lowest covered question of the recall set
    (hit(0.76, dense=0.925, bm25=0.513), False, ""),
    (hit(0.9, dense=0.2, bm25=None, rerank=0.9), False, ""),  # a reranker's confident score is not second-guessed
])
def test_match_strength(best, weak, reason):
    strength = match_strength([best, hit(0.3, 0.3, 0.3)], THRESHOLD)
    assert (strength.weak, strength.reason) == (weak, reason)


def test_no_hit_is_not_a_weak_match():
    assert not match_strength([], THRESHOLD).weak


def test_the_notice_speaks_the_question_language_and_is_recognised_when_stored():
    strength = match_strength([hit(0.315, dense=0.275, bm25=0.374)], THRESHOLD)
    en = weak_notice("What is the capital of Australia?", strength, THRESHOLD)
    zh = weak_notice("澳大利亚的首都是哪里？", strength, THRESHOLD)
    assert en.startswith("Weak match:") and "0.32" in en and "0.30" in en and "only the words match" in en
    assert zh.startswith("匹配较弱：") and "只有字词相符" in zh
    assert says_weak(["fetching x", zh]) and not says_weak(["not from the knowledge base"])
