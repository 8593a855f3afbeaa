"""Filtered search at scale on the embedded store: a selective metadata filter on every channel.

100k points by default (5,000 files of 20 chunks), as benchmarks/vectorstore_100k.py builds them
(384-d random unit dense vectors, BM25 vectors of the real texts of ../shared/data/retrieval,
the datasets' real questions). Each file gets metadata through ``set_file_metadata`` (the path a
value set takes: payload only, no vector): an office out of 50 (a filter on one keeps 2% of the
points), a year 2000-2024, a date, two tags of 30. Each query is one ``search_batch`` of a dense
and a BM25 channel query, as retrieval sends them; every hit is checked against the filter.

    .venv/bin/python benchmarks/metadata_filter.py [--points 100000] [--optimize]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.vectorstore_100k import POINTS_PER_FILE, percentiles, read_texts  # noqa: E402
from core.metadata.fields import FieldDef  # noqa: E402
from core.metadata.where import condition  # noqa: E402
from core.retrieval import bm25  # noqa: E402
from core.types import ChannelQuery, SearchFilter, VectorPoint  # noqa: E402
from core.vectorstore.edge import EdgeStore  # noqa: E402

OFFICE, YEAR, DAY, TAGS = (FieldDef("office", "text", "fo"), FieldDef("year", "number", "fy"),
                           FieldDef("effective", "date", "fd"), FieldDef("topics", "tags", "ft"))
INDEXES = {"meta.fo": "text", "meta.fy": "number", "meta.fd": "date", "meta.ft": "tags"}


def file_values(file_no: int, rng: random.Random) -> dict:
    year = 2000 + file_no % 25
    return {"fo": f"office-{file_no % 50}", "fy": float(year), "fd": f"{year}-{1 + file_no % 12:02d}-15T00:00:00Z",
            "ft": sorted(rng.sample([f"tag-{t}" for t in range(30)], 2))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--optimize", action="store_true", help="build the HNSW index first (minutes at 100k)")
    args = ap.parse_args()
    rng, nrng = random.Random(42), np.random.default_rng(42)
    texts = read_texts("corpus.jsonl")
    base_tokens = [bm25.tokenize(t) for t in texts]
    vocab = sorted({tok for toks in base_tokens for tok in toks})
    avg_len = sum(map(len, base_tokens)) / len(base_tokens) + 3
    n_files = args.points // POINTS_PER_FILE
    values = {f"file-{k}": file_values(k, rng) for k in range(n_files)}

    with tempfile.TemporaryDirectory() as tmp, EdgeStore(Path(tmp)) as store:
        store.create_collection("bench", args.dim)
        t0 = time.perf_counter()
        for start in range(0, args.points, 1000):
            n = min(1000, args.points - start)
            dense = nrng.normal(size=(n, args.dim)).astype(np.float32)
            dense /= np.linalg.norm(dense, axis=1, keepdims=True)
            store.upsert("bench", [VectorPoint(
                id=str(uuid.UUID(int=start + j + 1)), dense=dense[j].tolist(),
                sparse=bm25.weigh_document(base_tokens[(start + j) % len(texts)] + rng.sample(vocab, 3), avg_len),
                payload={"file_id": f"file-{(start + j) // POINTS_PER_FILE}", "kb_id": "kb",
                         "chunk_index": (start + j) % POINTS_PER_FILE, "text": texts[(start + j) % len(texts)]})
                for j in range(n)])
        print(f"upsert {args.points} points: {time.perf_counter() - t0:.1f} s")
        t0 = time.perf_counter()
        store.set_file_metadata("bench", {}, INDEXES)
        ids = list(values)
        for start in range(0, len(ids), 500):
            store.set_file_metadata("bench", {k: values[k] for k in ids[start:start + 500]}, INDEXES)
        took = time.perf_counter() - t0
        print(f"metadata of {n_files} files ({POINTS_PER_FILE} points each), payload only: {took:.1f} s "
              f"({took / n_files * 1000:.2f} ms a file)")
        if args.optimize:
            t0 = time.perf_counter()
            store.optimize("bench")
            print(f"optimize: {time.perf_counter() - t0:.0f} s")

        questions = rng.sample(read_texts("queries.jsonl"), args.queries)
        qdense = nrng.normal(size=(args.queries, args.dim)).astype(np.float32)
        qdense /= np.linalg.norm(qdense, axis=1, keepdims=True)
        qd, qs = [v.tolist() for v in qdense], [bm25.encode_query(q) for q in questions]
        filters = {
            "none": (),
            "office": (condition(OFFICE, "office-7"),),
            "2 offices + year range": (condition(OFFICE, ["office-7", "office-33"]), condition(YEAR, {"gte": 2007, "lt": 2009})),
            "date range + tag": (condition(DAY, {"gte": "2012-01-01", "lte": "2012-12-31"}), condition(TAGS, ["tag-3"])),
        }
        for name, conds in filters.items():
            flt = SearchFilter(metadata=conds)
            share = sum(all(c.matches(v.get(c.key)) for c in conds) for v in values.values()) / n_files

            def run(k: int):
                return store.search_batch([ChannelQuery("bench", 40, flt, dense=qd[k]),
                                           ChannelQuery("bench", 40, flt, sparse=qs[k])])
            run(0)
            wall = []
            for k in range(args.queries):
                t0 = time.perf_counter()
                dense, sparse = run(k)
                wall.append(time.perf_counter() - t0)
                for p in dense + sparse:
                    assert all(c.matches(values[p.payload["file_id"]].get(c.key)) for c in conds), name
                assert dense, name
            print(f"filter {name:28s} keeps {share:6.2%}  dense+BM25 batch {percentiles(wall)}")


if __name__ == "__main__":
    main()
