"""Ingestion throughput against raw embedding throughput of the same model on the same text.

The corpus of ../shared/data/retrieval/xquad-en-chunks (856 passages of at most 300
characters, so each becomes one chunk) is ingested as 856 documents through the whole
pipeline (parse, clean, chunk, embed, BM25 encode, upsert, database rows, jobs); the same
texts are then embedded directly in batches of the same size. Overhead = ingest time /
embedding time - 1 (target ≤ 15%). Rounds alternate the two to spread the machine's noise.

    .venv/bin/python benchmarks/ingest_overhead.py [--embedder multilingual-e5-small] [--rounds 2]

With ``--embedder hash-64`` (a hash, no model) it measures the fixed cost per file alone, which
is what the overhead is made of on a machine whose embedder is fast.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "retrieval" / "xquad-en-chunks" / "corpus.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", default="multilingual-e5-small")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--docs", type=int, default=856)
    # a work tree outside the main checkout has no shared/ beside it: point at the corpus
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    texts = [json.loads(line)["text"] for line in args.corpus.open(encoding="utf-8")][: args.docs]
    ingest_times, embed_times = [], []
    for rnd in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            with Engine(RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{tmp}/i.db")) as engine:
                engine.save_settings(SYSTEM_ACTOR, {"embedding": {"model": args.embedder}})
                embedder = engine.embedder()
                batch = engine.settings().embedding.batch_size
                embedder.embed_documents(texts[:batch])  # warm up the model before either timing
                engine.create_kb(SYSTEM_ACTOR, "kb")
                uploads = [Upload(f"p{i}.txt", t.encode("utf-8")) for i, t in enumerate(texts)]
                t0 = time.perf_counter()
                results = engine.ingest(SYSTEM_ACTOR, "kb", uploads)
                ingest_times.append(time.perf_counter() - t0)
                chunks = sum(r.chunks for r in results)
                chunk_texts = [c["text"] for r in results for c in engine.file_chunks(SYSTEM_ACTOR, r.file_id)]
                t0 = time.perf_counter()
                for start in range(0, len(chunk_texts), batch):
                    embedder.embed_documents(chunk_texts[start:start + batch])
                embed_times.append(time.perf_counter() - t0)
        print(f"round {rnd + 1}: ingest {ingest_times[-1]:.1f} s ({chunks} chunks), "
              f"embedding alone {embed_times[-1]:.1f} s", flush=True)
    ingest, embed = min(ingest_times), min(embed_times)
    print(f"\n{args.embedder}: {len(texts)} documents, {chunks} chunks")
    print(f"ingest {len(texts) / ingest:.1f} docs/s ({chunks / ingest:.1f} chunks/s); "
          f"embedding alone {chunks / embed:.1f} chunks/s")
    print(f"overhead of everything but embedding: {ingest / embed - 1:+.1%} (target ≤ +15%), best of {args.rounds} rounds")
    # What the pipeline costs per file besides embedding: with --embedder hash-64 (no model) nearly
    # all of it. Against another machine's embedding speed it gives the overhead there.
    fixed_ms = (ingest - embed) / len(texts) * 1000
    print(f"fixed cost per file besides embedding: {fixed_ms:.2f} ms "
          f"(embedding: {embed / chunks * 1000:.2f} ms per chunk)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
