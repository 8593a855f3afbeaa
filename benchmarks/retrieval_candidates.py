"""Retrieval candidates for issue 21, measured on a TUNE split and reported on a held-out REPORT split.

Each set's questions are split once, deterministically, into two halves that share no group:
XQuAD questions by article (all questions about one Wikipedia article are on one side, so a
setting cannot learn an article), Cranfield questions by a hash of their id. The corpus is the
whole set on both sides. A candidate is kept only if it wins on tune; its report figure is the
honest one.

Embeddings are cached on disk (benchmarks/embedding_cache.py), so a candidate that does not
change the embedded text costs seconds; each distinct chunk text is embedded once.

    .venv/bin/python benchmarks/retrieval_candidates.py --sets xquad-zh-chunks,xquad-en-chunks,cranfield-en
    .venv/bin/python benchmarks/retrieval_candidates.py --sets xquad-zh-chunks --candidates "after: defaults|1000/100, before"
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from embedding_cache import install_cache

from core.evaluation import Dataset, EvalKB, ingested, score_mode
from core.retrieval import bm25
from core.settings.model import RetrievalSettings
from core.types import SYSTEM_ACTOR

DATA = ROOT.parent / "shared" / "data" / "retrieval"
SETS = ["xquad-zh-chunks", "xquad-en-chunks", "cranfield-en", "xquad-zh", "xquad-en"]
SPLIT_RULE = "XQuAD by article, others by query id (blake2b first byte even = tune)"
_ARTICLE = re.compile(r"^(xquad-a\d+)-")

# name -> (chunking settings patch: needs its own ingest, retrieval settings patch, query-side
# weight of Chinese character bigrams in BM25: None = the product's). Candidates sharing a
# chunking patch share one ingest.
CANDIDATES: dict[str, tuple[dict, dict, float | None]] = {
    "before: issue-9 defaults": ({"contextual_text": False}, {}, 1.0),
    "after: defaults": ({}, {}, None),
    "words-only queries alone": ({"contextual_text": False}, {}, None),
    "contextual text alone": ({"contextual_text": True}, {}, 1.0),
    "words-only + contextual text": ({"contextual_text": True}, {}, None),
    # the rows below were measured over "words-only + contextual text"
    "zh query: bigrams 0.25": ({"contextual_text": True}, {}, 0.25),
    "weights 0.5/0.5": ({"contextual_text": True}, {"dense_weight": 0.5, "bm25_weight": 0.5}, None),
    "weights 0.4/0.6": ({"contextual_text": True}, {"dense_weight": 0.4, "bm25_weight": 0.6}, None),
    "weights 0.7/0.3": ({"contextual_text": True}, {"dense_weight": 0.7, "bm25_weight": 0.3}, None),
    "candidates 100": ({"contextual_text": True}, {"candidates": 100}, None),
    "1000/100 + contextual": ({"chunk_size": 1000, "chunk_overlap": 100, "contextual_text": True}, {}, None),
    "1000/100 + contextual + weights 0.4/0.6": ({"chunk_size": 1000, "chunk_overlap": 100, "contextual_text": True},
                                                {"dense_weight": 0.4, "bm25_weight": 0.6}, None),
    "1000/100, before": ({"chunk_size": 1000, "chunk_overlap": 100, "contextual_text": False}, {}, 1.0),
}
# "before" = the defaults of issue 9 (bigrams in the query, chunks indexed as they are);
# "after" = today's defaults; each "alone" row is one change over "before".
DEFAULT_CANDIDATES = [n for n in CANDIDATES if not n.startswith("1000/100")]


def split_of(data: Dataset, qid: str) -> str:
    """'tune' or 'report', fixed for a question whatever is being measured."""
    doc = next(iter(data.qrels[qid]))
    m = _ARTICLE.match(doc)
    group = m.group(1) if m else qid
    return "tune" if hashlib.blake2b(group.encode(), digest_size=2).digest()[0] % 2 == 0 else "report"


def splits(data: Dataset) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"tune": [], "report": []}
    for qid in data.queries:
        out[split_of(data, qid)].append(qid)
    return out


def measure(kb: EvalKB, retrieval: dict, bigram_weight: float | None,
            halves: dict[str, list[str]]) -> dict[str, object]:
    defaults = RetrievalSettings().model_dump(include={"dense_weight", "bm25_weight", "candidates"})
    kb.engine.save_settings(SYSTEM_ACTOR, {"retrieval": defaults | retrieval})
    product_weight = bm25.QUERY_BIGRAM_WEIGHT
    # the one query-side knob that is a module constant, not a setting: set for this candidate only
    bm25.QUERY_BIGRAM_WEIGHT = product_weight if bigram_weight is None else bigram_weight
    try:
        return {name: score_mode(kb, "hybrid", qids) for name, qids in halves.items()}
    finally:
        bm25.QUERY_BIGRAM_WEIGHT = product_weight


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=",".join(SETS[:3]))
    ap.add_argument("--candidates", default="|".join(DEFAULT_CANDIDATES), help="names separated by |")
    ap.add_argument("--embedder", default="multilingual-e5-small")
    args = ap.parse_args()
    cache = install_cache(args.embedder)
    names = args.candidates.split("|")
    print(f"tune/report split: {SPLIT_RULE}", file=sys.stderr)
    print("| set | candidate | chunks | questions tune/report | tune nDCG@10 | tune MRR@10 | report nDCG@10 | report R@5 | report MRR@10 | report answer hit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for dataset in args.sets.split(","):
        by_ingest: dict[str, list[str]] = {}
        for n in names:
            by_ingest.setdefault(repr(sorted(CANDIDATES[n][0].items())), []).append(n)
        for group in by_ingest.values():
            chunking = CANDIDATES[group[0]][0]
            t0 = time.perf_counter()
            with ingested(DATA / dataset, embedder=args.embedder, chunking=chunking or None,
                          progress=lambda m, dataset=dataset: print(f"  {dataset}: {m}", file=sys.stderr, flush=True)) as kb:
                print(f"  {dataset}: ingest {time.perf_counter() - t0:.0f} s, cache hits {cache.hits} misses {cache.misses}",
                      file=sys.stderr, flush=True)
                halves = splits(kb.data)
                for n in group:
                    s = measure(kb, CANDIDATES[n][1], CANDIDATES[n][2], halves)
                    t, r = s["tune"], s["report"]
                    hit = "" if r.answer_hit is None else f"{r.answer_hit:.3f}"
                    print(f"| {dataset} | {n} | {kb.chunks} | {t.queries}/{r.queries} | {t.ndcg10:.3f} | {t.mrr10:.3f} | {r.ndcg10:.3f} | "
                          f"{r.recall5:.3f} | {r.mrr10:.3f} | {hit} |", flush=True)


if __name__ == "__main__":
    main()
