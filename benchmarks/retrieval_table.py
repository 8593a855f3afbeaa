"""Regenerate the evidence table in docs/retrieval.md: every bundled embedder × mode × shared set.

Each cell is `python -m core eval` (core.evaluation.evaluate) on ../shared/data/retrieval/<set>:
document-level nDCG@10, with our own chunking, embedding, engine-side BM25 and hybrid rerank.
XQuAD sets use their first 300 questions (as the calibration in DESIGN.md did); Cranfield all 225.

    .venv/bin/python benchmarks/retrieval_table.py > /tmp/table.md
    .venv/bin/python benchmarks/retrieval_table.py --chunking     # chunking variants, default embedder
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.evaluation import evaluate  # noqa: E402

SETS = ["xquad-zh", "xquad-en", "xquad-zh-chunks", "xquad-en-chunks", "cranfield-en"]
EMBEDDERS = ["multilingual-e5-small", "all-minilm-l6-v2"]
MODES = ["dense", "bm25", "hybrid"]
CHUNKING = {
    "500/50 (default)": {},
    "1000/100": {"chunk_size": 1000, "chunk_overlap": 100},
    "500/50, min 250": {"chunk_min_size_target": 250},
    "200/20": {"chunk_size": 200, "chunk_overlap": 20},
}


def run(dataset: str, embedder: str, chunking: dict | None = None):
    folder = ROOT.parent / "shared" / "data" / "retrieval" / dataset
    max_q = None if dataset.startswith("cranfield") else 300
    return evaluate(folder, embedder=embedder, modes=MODES, chunking=chunking, max_queries=max_q,
                    progress=lambda m: print(f"  {dataset} {embedder}: {m}", file=sys.stderr, flush=True))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunking", action="store_true", help="chunking variants with the default embedder instead")
    ap.add_argument("--sets", default=",".join(SETS))
    args = ap.parse_args()
    sets = args.sets.split(",")
    if args.chunking:
        print("| set | chunking | chunks | dense | bm25 | hybrid | hybrid answer hit |")
        print("|---|---|---|---|---|---|---|")
        for dataset in sets:
            for label, cfg in CHUNKING.items():
                r = run(dataset, EMBEDDERS[0], cfg)
                s = {m.mode: m for m in r.scores}
                hit = s["hybrid"].answer_hit
                print(f"| {dataset} | {label} | {r.chunks} | {s['dense'].ndcg10:.3f} | {s['bm25'].ndcg10:.3f} | "
                      f"{s['hybrid'].ndcg10:.3f} | {'' if hit is None else f'{hit:.3f}'} |", flush=True)
        return
    print("| set | embedder | chunks | ingest s | dense | bm25 | hybrid | hybrid R@5 | hybrid MRR@10 | answer hit | p95 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dataset in sets:
        for embedder in EMBEDDERS:
            r = run(dataset, embedder)
            s = {m.mode: m for m in r.scores}
            h = s["hybrid"]
            hit = "" if h.answer_hit is None else f"{h.answer_hit:.3f}"
            print(f"| {dataset} | {embedder} | {r.chunks} | {r.ingest_seconds:.0f} | {s['dense'].ndcg10:.3f} | "
                  f"{s['bm25'].ndcg10:.3f} | **{h.ndcg10:.3f}** | {h.recall5:.3f} | {h.mrr10:.3f} | {hit} | "
                  f"{h.latency_p95_ms:.0f} |", flush=True)


if __name__ == "__main__":
    main()
