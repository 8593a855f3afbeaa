"""Retrieval latency through the whole search pipeline at 10k and 100k chunks.

Chunk texts are real (the shared retrieval corpora, sentence-split and repeated with a
variation marker to reach the size); their stored dense vectors are random unit vectors
(latency does not depend on what they mean, and embedding 100k chunks here would take
hours). Queries are real questions embedded with the configured model, so the figure
"including the query embedding" is honest.

    .venv/bin/python benchmarks/retrieval_scale.py [--sizes 10000,100000] [--embedder multilingual-e5-small]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import RuntimeConfig  # noqa: E402
from core.db.models import FileRecord  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.ingest.pipeline import point_id  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.retrieval import bm25  # noqa: E402
from core.types import SYSTEM_ACTOR, VectorPoint  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "retrieval"
CHUNKS_PER_FILE = 1000


def sentences() -> list[str]:
    out = []
    for name in ("xquad-en", "xquad-zh", "cranfield-en"):
        for line in (SHARED / name / "corpus.jsonl").open(encoding="utf-8"):
            text = json.loads(line)["text"]
            out.extend(s.strip() for s in re.split(r"(?<=[.!?。！？])\s*", text) if len(s.strip()) > 20)
    return out


def questions() -> list[str]:
    qs = []
    for name in ("xquad-en", "xquad-zh"):
        qs.extend(json.loads(line)["text"] for line in (SHARED / name / "queries.jsonl").open(encoding="utf-8"))
    random.Random(7).shuffle(qs)
    return qs


def build(engine: Engine, size: int, texts: list[str], dim: int) -> None:
    kb = engine.get_kb(SYSTEM_ACTOR, "scale")
    rng = np.random.default_rng(1)
    for f in range(size // CHUNKS_PER_FILE):
        rec = FileRecord(sha256=f"synthetic-{size}-{f}", name=f"part{f}.md", owner_id="system", kb_id=kb.id,
                         status="indexed", collection=kb.collection, chunk_count=CHUNKS_PER_FILE)
        with engine._db.write() as s:
            s.add(rec)
        vecs = rng.standard_normal((CHUNKS_PER_FILE, dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        points = []
        for i in range(CHUNKS_PER_FILE):
            text = f"{texts[(f * CHUNKS_PER_FILE + i) % len(texts)]} (v{f})"
            points.append(VectorPoint(id=point_id(rec.id, i), dense=vecs[i].tolist(), sparse=bm25.encode_document(text),
                                      payload={"file_id": rec.id, "kb_id": kb.id, "chunk_index": i, "text": text,
                                               "heading_path": [], "source_name": rec.name}))
        for start in range(0, len(points), 500):
            engine._store.upsert(kb.collection, points[start:start + 500])


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--embedder", default="multilingual-e5-small")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    texts, qs = sentences(), questions()[: args.queries]
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            config = RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{tmp}/b.db")
            with Engine(config) as engine:
                engine.save_settings(SYSTEM_ACTOR, {"embedding": {"model": args.embedder}})
                engine.create_kb(SYSTEM_ACTOR, "scale")
                engine.ingest(SYSTEM_ACTOR, "scale", [Upload("seed.md", b"# seed\n\nA seed document.")])
                t0 = time.perf_counter()
                build(engine, size, texts, engine.embedder().dimension)
                build_s = time.perf_counter() - t0
                for q in qs[:5]:
                    engine.search(SYSTEM_ACTOR, q, ["scale"])  # warm up
                rows = {}
                for mode in ("dense", "bm25", "hybrid"):
                    without, total = [], []
                    for q in qs:
                        r = engine.search(SYSTEM_ACTOR, q, ["scale"], mode=mode, min_score=0)
                        total.append(r.timings_ms["total"])
                        without.append(r.timings_ms["total"] - r.timings_ms["embed_query"])
                    rows[mode] = (statistics.median(without), pct(without, 95), statistics.median(total), pct(total, 95))
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"\n{size} chunks (upsert {build_s:.1f} s), {len(qs)} queries, embedder {args.embedder}, peak RSS {rss:.0f} MB")
            print(f"{'mode':<8} {'p50 excl. embed':>16} {'p95 excl. embed':>16} {'p50 total':>10} {'p95 total':>10}")
            for mode, (a, b, c, d) in rows.items():
                print(f"{mode:<8} {a:>13.1f} ms {b:>13.1f} ms {c:>7.1f} ms {d:>7.1f} ms", flush=True)


if __name__ == "__main__":
    main()
