"""Normal mode: how strongly the knowledge base matches a question (issue 18).

Normal mode answers from whatever passes ``rag_min_similarity``. Just above that bar a passage
can pass on one channel alone: "What is the capital of Australia?" reached the demo's hotel
table (0.315 against 0.30) through the word "capital", while the meaning of the two did not
match. Raising the threshold would cut covered questions too, so two signals of the best
passage decide whether the match is *weak* instead:

* **channel agreement** — in hybrid ranking, the meaning (dense) and the words (BM25) are each
  scored on the same calibrated scale as the threshold; a passage that one of them puts below
  the threshold is carried by the other one alone;
* **margin** — a best score less than ``WEAK_MARGIN`` above the threshold is a near miss
  whatever the channels say (a reranked or single-channel score has no second channel).

A weak match is still answered (no covered question is lost), with a notice in the question's
language and ``Answer.weak_match`` set, so the badge does not say plainly "from the knowledge
base". Measured in docs/answering.md ("Weak matches in normal mode"). Strict mode does not use
this: it has its own, higher threshold and refuses below it.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.llm.text_match import has_cjk
from core.retrieval.search import SearchHit

WEAK_MARGIN = 0.05  # calibrated score units above the threshold that still count as "near" it

_NOTICE = {
    "en": "Weak match: nothing in the knowledge base clearly answers this question (best match {score:.2f}, "
          "threshold {threshold:.2f}; {why}). The passages below may not answer it.",
    "zh": "匹配较弱：知识库中没有明确回答这个问题的内容（最佳匹配 {score:.2f}，阈值 {threshold:.2f}；{why}），"
          "以下内容可能并未回答问题。",
}
_WHY = {
    "words_only": {"en": "only the words match, not the meaning", "zh": "只有字词相符，语义不符"},
    "meaning_only": {"en": "only the meaning matches, none of the words", "zh": "只有语义相近，字词不符"},
    "near_threshold": {"en": "just above the threshold", "zh": "仅略高于阈值"},
}
NOTICE_PREFIXES = ("Weak match:", "匹配较弱：")


@dataclass(frozen=True)
class MatchStrength:
    weak: bool
    reason: str = ""  # words_only | meaning_only | near_threshold
    score: float = 0.0


def match_strength(hits: list[SearchHit], threshold: float) -> MatchStrength:
    """How well the best retrieved passage matches; hits are the ones that passed, best first."""
    if not hits:
        return MatchStrength(False)
    best = hits[0]
    if best.rerank is None and best.dense_score is not None and best.bm25_score is not None:
        if best.dense_score < threshold:
            return MatchStrength(True, "words_only", best.score)
        if best.bm25_score < threshold:
            return MatchStrength(True, "meaning_only", best.score)
    if best.score < threshold + WEAK_MARGIN:
        return MatchStrength(True, "near_threshold", best.score)
    return MatchStrength(False, score=best.score)


def weak_notice(question: str, strength: MatchStrength, threshold: float) -> str:
    lang = "zh" if has_cjk(question) else "en"
    return _NOTICE[lang].format(score=strength.score, threshold=threshold, why=_WHY[strength.reason][lang])


def says_weak(notices: list[str]) -> bool:
    """Whether stored notices carry the weak-match notice (a stored message keeps its notices)."""
    return any(str(n).startswith(NOTICE_PREFIXES) for n in notices or [])
