"""Embedded vector store at scale: upsert, search latency and memory with the edge engine.

100k points by default: 384-d random unit dense vectors and BM25 sparse vectors from the real
texts of ../shared/data/retrieval (every corpus, repeated with variation: each copy gets a few
words drawn from the whole vocabulary, so no two sparse vectors are equal). Queries are the
datasets' real questions. Targets (issue 2): upsert < 30 s, search p95 < 20 ms.

    .venv/bin/python benchmarks/vectorstore_100k.py [--points 100000] [--batch 1000]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.retrieval import bm25  # noqa: E402
from core.types import SearchFilter, VectorPoint  # noqa: E402
from core.vectorstore.edge import EdgeStore  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "retrieval"
FILES_PER_KB = 500
POINTS_PER_FILE = 20


def read_texts(name: str) -> list[str]:
    texts = []
    for folder in sorted(DATA.iterdir()):
        if (folder / name).is_file():
            lines = (folder / name).read_text(encoding="utf-8").splitlines()
            texts.extend(json.loads(line)["text"] for line in lines if line)
    if not texts:
        raise SystemExit(f"no {name} under {DATA}")
    return texts


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    return f"p50 {statistics.median(ms):6.2f} ms   p95 {ms[int(len(ms) * 0.95) - 1]:6.2f} ms"


def timed(run, *args) -> tuple[object, float, float]:
    """Result, wall seconds and CPU seconds of this process (CPU time leaves out the waiting
    for a core that the shared machine adds to wall time)."""
    w0, c0 = time.perf_counter(), time.process_time()
    result = run(*args)
    return result, time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    rng = random.Random(42)
    nrng = np.random.default_rng(42)

    texts = read_texts("corpus.jsonl")
    t0 = time.perf_counter()
    base_tokens = [bm25.tokenize(t) for t in texts]
    encode_s = time.perf_counter() - t0
    vocab = sorted({tok for toks in base_tokens for tok in toks})
    avg_len = sum(map(len, base_tokens)) / len(base_tokens) + 3
    print(f"source: {len(texts)} real texts, vocabulary {len(vocab)}; "
          f"tokenize {len(texts) / encode_s:.0f} texts/s (jieba load included)")

    with tempfile.TemporaryDirectory() as tmp, EdgeStore(Path(tmp)) as store:
        store.create_collection("bench", args.dim)
        upsert_s = 0.0
        for start in range(0, args.points, args.batch):
            n = min(args.batch, args.points - start)
            dense = nrng.normal(size=(n, args.dim)).astype(np.float32)
            dense /= np.linalg.norm(dense, axis=1, keepdims=True)
            batch = []
            for j in range(n):
                i = start + j
                tokens = base_tokens[i % len(texts)] + rng.sample(vocab, 3)
                file_no = i // POINTS_PER_FILE
                batch.append(
                    VectorPoint(
                        id=str(uuid.UUID(int=i + 1)),
                        dense=dense[j].tolist(),
                        sparse=bm25.weigh_document(tokens, avg_len),
                        payload={
                            "file_id": f"file-{file_no}",
                            "kb_id": f"kb-{file_no // FILES_PER_KB}",
                            "chunk_index": i % POINTS_PER_FILE,
                            "text": texts[i % len(texts)],
                        },
                    )
                )
            t0 = time.perf_counter()
            store.upsert("bench", batch)  # flushed on return
            upsert_s += time.perf_counter() - t0
        print(f"upsert {args.points} points in batches of {args.batch}: {upsert_s:.1f} s "
              f"({args.points / upsert_s:.0f} points/s), count {store.count('bench')}")

        questions = rng.sample(read_texts("queries.jsonl"), args.queries)
        qdense = nrng.normal(size=(args.queries, args.dim)).astype(np.float32)
        qdense /= np.linalg.norm(qdense, axis=1, keepdims=True)
        qd = [v.tolist() for v in qdense]
        qs = [bm25.encode_query(q) for q in questions]
        n_kbs = max(1, args.points // (FILES_PER_KB * POINTS_PER_FILE))
        kb_filter = SearchFilter(kb_ids=(f"kb-{n_kbs // 2}",))
        file_filter = SearchFilter(file_ids=tuple(f"file-{k * 97}" for k in range(5)))
        cases = {
            "dense": lambda k: store.search_dense("bench", qd[k], 10, SearchFilter()),
            "sparse": lambda k: store.search_sparse("bench", qs[k], 10, SearchFilter()),
            "hybrid (prefetch 50)": lambda k: store.search_hybrid("bench", qd[k], qs[k], 10, SearchFilter(), 50),
            "dense, kb filter": lambda k: store.search_dense("bench", qd[k], 10, kb_filter),
            "hybrid, kb filter": lambda k: store.search_hybrid("bench", qd[k], qs[k], 10, kb_filter, 50),
            "hybrid, 5-file filter": lambda k: store.search_hybrid("bench", qd[k], qs[k], 10, file_filter, 50),
        }
        for name, run in cases.items():
            run(0)  # warm-up
            wall, cpu = [], []
            for k in range(args.queries):
                hits, w, c = timed(run, k)
                wall.append(w)
                cpu.append(c)
                assert hits or name.startswith("sparse"), name
            print(f"search {name:22s} wall {percentiles(wall)}   cpu {percentiles(cpu)}")

        for name, run in {
            "count one file": lambda: store.count("bench", file_id="file-123"),
            "file_ids (all files)": lambda: store.file_ids("bench"),
            "delete_file (20 points)": lambda: store.delete_file("bench", f"file-{rng.randrange(1000)}"),
        }.items():
            samples = []
            for _ in range(20):
                t0 = time.perf_counter()
                run()
                samples.append(time.perf_counter() - t0)
            print(f"{name:29s} {percentiles(samples)}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB (whole process: source texts, batches, engine)")


if __name__ == "__main__":
    main()
