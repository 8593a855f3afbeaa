"""Late interaction (issue 33): chunk-level ranking before and after, on a TUNE and a REPORT half.

Each set is ingested through the product with token vectors on (``chunking.token_vectors``) and
searched once per row with the late-interaction settings of that row (``retrieval.late_*``); the
"hybrid (before)" row is the same index searched with the stage off, i.e. today's ranking. The
split is benchmarks/retrieval_candidates.py's (XQuAD by article, Cranfield by query id); weights
and candidate counts are chosen on tune, the report half is the honest figure.

Cross-language sets are made here from the parallel XQuAD sets (same query ids in both
languages): ``xl-zh2en`` asks the Chinese questions over the English chunks, ``xl-en2zh`` the
English questions over the Chinese chunks.

Disk: the collection's files per chunk, with token vectors and (``--disk``) without them (a second
ingest of the set with ``chunking.token_vectors`` off). Latency here uses cached embeddings
(benchmarks/embedding_cache.py): ``late ms`` is the stage itself (query token states from the
cache, MaxSim in the store); the model's query pass and scale figures are in
benchmarks/retrieval_scale.py --tokens.

    .venv/bin/python benchmarks/late_interaction.py --sets xquad-zh-chunks,xquad-en-chunks,cranfield-en,xl-zh2en,xl-en2zh --disk
    .venv/bin/python benchmarks/late_interaction.py --sets xquad-zh-chunks --storage float16 --budget 64
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from embedding_cache import install_cache  # noqa: E402
from retrieval_candidates import DATA, splits  # noqa: E402

from core.evaluation import EvalKB, ingested, ndcg_at, recall_at, mrr_at  # noqa: E402
from core.retrieval import late  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402
from core.vectorstore import _common  # noqa: E402

CROSS = {"xl-zh2en": ("xquad-en-chunks", "xquad-zh-chunks"), "xl-en2zh": ("xquad-zh-chunks", "xquad-en-chunks")}
# row -> retrieval settings patch
ROWS: dict[str, dict] = {
    "hybrid (before)": {"late_interaction": False},
    "late w0.8 N20 (default)": {"late_interaction": True, "late_weight": 0.8, "late_candidates": 20},
    "late w0.6 N20": {"late_interaction": True, "late_weight": 0.6, "late_candidates": 20},
    "late w1.0 N20": {"late_interaction": True, "late_weight": 1.0, "late_candidates": 20},
    "late w0.8 N10": {"late_interaction": True, "late_weight": 0.8, "late_candidates": 10},
    "late w0.8 N40": {"late_interaction": True, "late_weight": 0.8, "late_candidates": 40},
}


def folder(name: str, tmp: Path) -> Path:
    """A shared set, or a cross-language one: one set's corpus and judgements, the other's questions."""
    if name not in CROSS:
        return DATA / name
    corpus, questions = CROSS[name]
    out = tmp / name
    out.mkdir()
    for f in ("corpus.jsonl", "qrels.tsv"):
        (out / f).write_bytes((DATA / corpus / f).read_bytes())
    (out / "queries.jsonl").write_bytes((DATA / questions / "queries.jsonl").read_bytes())
    return out


def disk_kb_per_chunk(kb: EvalKB) -> tuple[float, float]:
    """KB a chunk of the collection's files (blocks in use), all and without the write-ahead log."""
    engine = kb.engine
    collection = engine.get_kb(SYSTEM_ACTOR, "eval").collection
    path = Path(engine._store.root) / "collections" / collection
    engine._store.close()  # flushed and closed: what stays on disk (the engine is done with it)
    files = [f for f in path.rglob("*") if f.is_file()]
    size = lambda fs: sum(f.stat().st_blocks * 512 for f in fs) / 1024 / max(kb.chunks, 1)
    return size(files), size([f for f in files if "wal" not in f.relative_to(path).parts[0]])


def score(kb: EvalKB, qids: list[str]) -> dict[str, float]:
    ndcg, r5, mrr, total, stage = [], [], [], [], []
    for qid in qids:
        result = kb.engine.search(SYSTEM_ACTOR, kb.data.queries[qid], ["eval"], mode="hybrid", top_k=50, min_score=0.0)
        ranked: list[str] = []
        for h in result.hits:
            doc = kb.doc_of_file.get(h.file_id)
            if doc and doc not in ranked:
                ranked.append(doc)
        rel = kb.data.qrels[qid]
        ndcg.append(ndcg_at(ranked, rel))
        r5.append(recall_at(ranked, rel, 5))
        mrr.append(mrr_at(ranked, rel))
        total.append(result.timings_ms["total"] - result.timings_ms["embed_query"])
        stage.append(result.timings_ms.get("late", 0.0))
    p95 = lambda xs: sorted(xs)[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
    return {"ndcg": statistics.mean(ndcg), "r5": statistics.mean(r5), "mrr": statistics.mean(mrr),
            "p95": p95(total), "late_p95": p95(stage)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="xquad-zh-chunks,xquad-en-chunks,cranfield-en,xl-zh2en,xl-en2zh")
    ap.add_argument("--rows", default="|".join(ROWS), help="row names separated by |")
    ap.add_argument("--storage", default=_common.TOKEN_STORAGE, choices=["turbo8", "float16"])
    ap.add_argument("--budget", type=int, default=late.TOKEN_BUDGET, help="token vectors stored per chunk at most")
    ap.add_argument("--disk", action="store_true", help="also ingest without token vectors, for the disk per chunk")
    args = ap.parse_args()
    _common.TOKEN_STORAGE, late.TOKEN_BUDGET = args.storage, args.budget  # read when collections and points are made
    cache = install_cache("multilingual-e5-small")
    print(f"storage {args.storage}, at most {args.budget} tokens a chunk; latency: cached embeddings, busy machine",
          file=sys.stderr)
    print("| set | row | tune nDCG@10 | report nDCG@10 | report R@5 | report MRR@10 | p95 ms excl. query embedding | late stage p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    disks = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sets.split(","):
            path = folder(name, Path(tmp))
            say = lambda m, name=name: print(f"  {name}: {m}", file=sys.stderr, flush=True)
            with ingested(path, chunking={"token_vectors": True}, progress=say) as kb:
                say(f"{kb.chunks} chunks; cache hits {cache.hits} misses {cache.misses}")
                halves = splits(kb.data)
                for row in args.rows.split("|"):
                    kb.engine.save_settings(SYSTEM_ACTOR, {"retrieval": ROWS[row]})
                    t, r = score(kb, halves["tune"]), score(kb, halves["report"])
                    print(f"| {name} | {row} | {t['ndcg']:.3f} | {r['ndcg']:.3f} | {r['r5']:.3f} | {r['mrr']:.3f} | "
                          f"{r['p95']:.1f} | {r['late_p95']:.1f} |", flush=True)
                with_tokens = disk_kb_per_chunk(kb)
            if args.disk and name not in CROSS:
                with ingested(path, chunking={"token_vectors": False}, progress=say) as plain:
                    disks.append((name, plain.chunks, disk_kb_per_chunk(plain), with_tokens))
    for name, chunks, without, with_tokens in disks:
        print(f"disk {name} ({chunks} chunks), KB a chunk, all files / without the write-ahead log: "
              f"{without[0]:.1f} / {without[1]:.1f} without token vectors, {with_tokens[0]:.1f} / {with_tokens[1]:.1f} "
              f"with ({args.storage}, at most {args.budget} tokens)")


if __name__ == "__main__":
    main()
