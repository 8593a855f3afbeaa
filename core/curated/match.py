"""Is a question the same as a curated one? A cosine threshold, and a veto on the near miss.

Measured on benchmarks/data/curated_match.jsonl (benchmarks/curated_match.py): a bi-encoder
puts a neighbouring question — the curated sentence with one subject swapped, "sick leave"
for "annual leave", 其他城市 for 一线城市 — as close as a paraphrase or closer (e5: 0.99 for
the hotel-cap neighbour, paraphrases from 0.85). No threshold separates them. What gives the
neighbour away is its shape: most content words shared, and each side with words the other
lacks. Such a pair is refused whatever its score; a paraphrase mostly rewords the sentence, so
it shares fewer words or only drops some.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from core.llm.text_match import strip_question_words
from core.retrieval.bm25 import query_words

# Shared share of content words from which a two-sided difference means "another subject".
SWAP_OVERLAP = 0.4


def normalized(text: str) -> str:
    """Case, width, spaces and punctuation do not matter: the same words are the same question."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def content_words(text: str) -> set[str]:
    return query_words(strip_question_words(text))


def other_subject(question: str, curated: str) -> bool:
    """The curated sentence with a subject swapped: most words shared, each side has its own."""
    q, c = content_words(question), content_words(curated)
    only_q, only_c = q - c, c - q
    if not only_q or not only_c:
        return False
    return len(q & c) / len(q | c) >= SWAP_OVERLAP


@dataclass(frozen=True)
class Verdict:
    similarity: float
    matched: bool
    reason: str  # same text | similar | other subject | below threshold


def judge(question: str, curated: str, similarity: float, threshold: float) -> Verdict:
    if normalized(question) == normalized(curated):
        return Verdict(1.0, True, "same text")
    if similarity < threshold:
        return Verdict(similarity, False, "below threshold")
    if other_subject(question, curated):
        return Verdict(similarity, False, "other subject")
    return Verdict(similarity, True, "similar")


def similarities(query_vector: np.ndarray, vectors: list[list[float]]) -> np.ndarray:
    """Cosine of the question with each curated question (vectors are L2-normalised)."""
    if not vectors:
        return np.zeros(0, dtype=np.float32)
    return np.asarray(vectors, dtype=np.float32) @ np.asarray(query_vector, dtype=np.float32)
