"""Make a score threshold mean the same thing whatever the embedding model and the query.

Raw cosine similarity is a poor relevance score on its own. Bands differ by model (e5 puts
almost everything between 0.75 and 0.92, MiniLM spreads from 0 to 0.8) and, worse, by
query: with e5 a bare "你好" reaches cosine 0.855 with a regulation chunk, while real
questions reach their answer chunk at 0.877 (p10) on XQuAD-zh — no fixed cut separates them.

So the dense channel is scored against a per-query baseline: how similar the query is to a
small fixed set of generic, off-topic "anchor" sentences (greetings, weather, food, sports,
thanks, in Chinese and English). A chunk counts as relevant by how far it beats that
baseline, in units of the model's typical margin:

    dense_score = clip((cos(query, chunk) - baseline(query)) / margin, 0, 1)

Measured with e5 on XQuAD (``benchmarks/calibrate_scores.py``): relevant chunks beat the
baseline by 0.04 (p10) / 0.08 (p50) in Chinese and 0.075 / 0.13 in English, while greetings,
weather, recipes and thanks stay at or below it. MiniLM's margins are about 4x wider. A
model without a measured margin (an API model) uses the generic one; the retrieval-test
panel shows raw and calibrated scores so an admin can tune thresholds.

BM25 is the engine's IDF-weighted score per query word squashed with ``s / (s + k)``: a
chunk matching the query's words as well as a typical answer chunk gets about 0.5 or more.
Query words are the tokeniser's words (jieba words, English stems), not the character bigrams
added for recall: a bigram mostly repeats a word, and counting them made every long Chinese
question look half as well matched (``bm25.query_word_count``).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import numpy as np

ANCHORS = (
    "你好，很高兴认识你。", "今天天气晴朗，气温二十度。", "这道菜需要先把肉切块再炖一个小时。",
    "这部电影讲述了一个感人的故事。", "比赛最后一分钟主队进球获胜。", "谢谢你的帮助。",
    "请问有什么可以帮您？", "股市今天小幅上涨。",
    "Hello, nice to meet you.", "The weather is sunny and warm today.",
    "Bake the bread at 220 degrees for forty minutes.", "The movie tells a moving story.",
    "The home team scored in the last minute to win.", "Thank you for your help.",
    "How can I help you today?", "Stocks rose slightly today.",
)

# The anchors' languages, in ANCHORS order: a passage is measured against the anchors of its own
# language (see ``Baselines``).
ANCHOR_LANGUAGES = ("zh",) * 8 + ("other",) * 8

# Typical margin of a relevant chunk over the anchor baseline, per embedder id and script of the
# query ("zh" Chinese, "other" everything else), or of the query and the passage when they differ
# ("zh>other": a Chinese question, an English passage). e5 puts English questions further above
# their baseline than Chinese ones (relevant chunk, XQuAD: p10 / median 0.075 / 0.13 in English,
# 0.04 / 0.08 in Chinese), so one margin made an English off-topic question look as relevant as a
# Chinese covered one (benchmarks/strict_recall.py). Across languages a relevant chunk beats the
# baseline of its own language by less (XQuAD tune half, median: Chinese question → English chunk
# 0.055, English → Chinese 0.079), so the margins are narrower: the median relevant chunk scores
# about as it does within one language.
MARGINS: dict[str, dict[str, float]] = {
    "local/multilingual-e5-small": {"zh": 0.10, "other": 0.15, "zh>other": 0.06, "other>zh": 0.09},
    "local/all-minilm-l6-v2": {"zh": 0.40, "other": 0.40},
}
GENERIC_MARGIN = 0.25

# Models that only understand English: for a Chinese query their vectors are noise (MiniLM on
# XQuAD-zh: dense nDCG@10 0.28 vs BM25 0.97), so hybrid ranking leans on keywords alone there.
ENGLISH_ONLY = frozenset({"local/all-minilm-l6-v2"})

# Per-query-term BM25 score at which the calibrated keyword score reaches 0.5.
BM25_HALF_SCORE = 2.0

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_anchor_lock = threading.Lock()
_anchor_vectors: dict[tuple[str, str, int], np.ndarray] = {}


def script_of_query(query: str) -> str:
    """"zh" for a question with Chinese (or other CJK) characters, "other" for the rest."""
    return "zh" if _CJK.search(query) else "other"


def script_of_passage(text: str) -> str:
    """"zh" when CJK characters make up at least a third of the passage's letters and words (an
    English passage naming 北京 stays English, a Chinese one with English terms stays Chinese)."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN_WORD.findall(text))
    return "zh" if cjk and cjk >= (cjk + latin) / 3 else "other"


def margin_for(embedder_id: str, query: str = "", passage_script: str | None = None) -> float:
    """The margin for ``query`` against a passage of ``passage_script`` (None: the query's own)."""
    q = script_of_query(query)
    pair = q if passage_script in (None, q) else f"{q}>{passage_script}"
    if embedder_id in MARGINS:
        margins = MARGINS[embedder_id]
        return margins.get(pair, margins[q])
    if embedder_id.startswith("test/hash"):
        return 0.40
    return GENERIC_MARGIN


def anchor_vectors(embedder, dimension: int) -> np.ndarray:
    """The anchors embedded once per process and model (16 short passages). Keyed by the
    model's endpoint and dimension too: two services may serve models of one name."""
    key = (embedder.id, str(getattr(embedder, "host", "") or ""), dimension)
    with _anchor_lock:
        vectors = _anchor_vectors.get(key)
        if vectors is None:
            vectors = _anchor_vectors[key] = np.asarray(embedder.embed_documents(list(ANCHORS)), dtype=np.float32)
        return vectors


@dataclass(frozen=True)
class Baselines:
    """How similar a query is to generic off-topic text: the mean of its two closest anchors, over
    all anchors (``overall``) and over each language's (``by_script``). A passage is scored against
    the baseline of its own language: across languages every cosine is lower, the anchors' too,
    so a Chinese question's English answer is compared with English off-topic text."""

    overall: float
    by_script: dict[str, float]

    def for_passage(self, script: str) -> float:
        return self.by_script.get(script, self.overall)

    @property
    def highest(self) -> float:
        return max([self.overall, *self.by_script.values()])


def query_baselines(embedder, query_vector) -> Baselines:
    query = np.asarray(query_vector, dtype=np.float32)
    sims = anchor_vectors(embedder, int(query.shape[0])) @ query
    top2 = lambda values: float(np.sort(values)[-2:].mean())
    languages = np.array(ANCHOR_LANGUAGES)
    return Baselines(top2(sims), {lang: top2(sims[languages == lang]) for lang in ("zh", "other")})


def query_baseline(embedder, query_vector) -> float:
    """The overall baseline (``Baselines.overall``)."""
    return query_baselines(embedder, query_vector).overall


def calibrate_dense(cosine: float, baseline: float, margin: float) -> float:
    return min(1.0, max(0.0, (cosine - baseline) / margin))


def calibrate_bm25(score: float, query_terms: int) -> float:
    if score <= 0 or query_terms <= 0:
        return 0.0
    per_term = score / query_terms
    return per_term / (per_term + BM25_HALF_SCORE)
