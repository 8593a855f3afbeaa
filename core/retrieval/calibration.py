"""Make a score threshold mean the same thing whatever the embedding model.

Raw cosine similarities live in model-specific bands: e5 puts almost everything between
0.7 and 0.9, MiniLM spreads from 0 to 0.8. A threshold of 0.5 would pass everything with
one and little with the other. So each channel is mapped to [0, 1] first:

- dense: ``(cos - unrelated) / (relevant - unrelated)``, clipped, where ``unrelated`` is
  the median cosine between a question and a random passage and ``relevant`` the median
  cosine between a question and its answer passage, measured per model on the shared
  XQuAD and Cranfield sets (``benchmarks/calibrate_scores.py`` prints them). So 0 means
  "like an unrelated passage" and 1 "like a typical answer passage".
- BM25: the engine's IDF-weighted score per query term, squashed with ``s / (s + k)``; a
  passage that matches the query's words about as well as a typical answer passage gets
  about 0.5 or more, a passage sharing only a common word stays near 0.

A model without a measured entry (an API model) uses the generic band below; the
retrieval-test panel shows raw and calibrated scores so an admin can tune thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DenseBand:
    unrelated: float
    relevant: float

    def calibrate(self, cosine: float) -> float:
        span = max(self.relevant - self.unrelated, 1e-6)
        return min(1.0, max(0.0, (cosine - self.unrelated) / span))


# Medians measured with benchmarks/calibrate_scores.py (XQuAD en+zh, Cranfield).
DENSE_BANDS: dict[str, DenseBand] = {
    "local/multilingual-e5-small": DenseBand(unrelated=0.74, relevant=0.86),
    "local/all-minilm-l6-v2": DenseBand(unrelated=0.02, relevant=0.55),
}
GENERIC_BAND = DenseBand(unrelated=0.10, relevant=0.60)

# Per-query-term BM25 score at which the calibrated keyword score reaches 0.5.
BM25_HALF_SCORE = 2.0


def dense_band(embedder_id: str) -> DenseBand:
    if embedder_id in DENSE_BANDS:
        return DENSE_BANDS[embedder_id]
    if embedder_id.startswith("test/hash"):
        return DenseBand(unrelated=0.0, relevant=0.5)
    return GENERIC_BAND


def calibrate_bm25(score: float, query_terms: int) -> float:
    if score <= 0 or query_terms <= 0:
        return 0.0
    per_term = score / query_terms
    return per_term / (per_term + BM25_HALF_SCORE)
