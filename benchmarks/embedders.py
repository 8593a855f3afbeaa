"""Throughput of the bundled embedders on real passages, and their peak memory.

    .venv/bin/python benchmarks/embedders.py [--models NAME ...] [--count 200] [--repeat 1]

For each model a fresh child process loads it, embeds a few warm-up texts, then the first
``--count`` English and Chinese XQuAD passages (../shared/data/retrieval/xquad-{en,zh}), and
reports texts/s, characters/s and its own peak RSS (so the figures do not mix models). The
machine's load average is printed alongside: on a shared machine the timings are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
DATA = Path(os.environ.get("RAGDESK_SHARED_DATA", REPO_ROOT.parent / "shared" / "data")) / "retrieval"
MODELS = ["multilingual-e5-small", "all-minilm-l6-v2", "hash-64"]


def load_passages(lang: str, count: int) -> list[str]:
    path = DATA / f"xquad-{lang}" / "corpus.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()[:count]
    return [json.loads(line)["text"] for line in lines]


def measure(model: str, count: int) -> dict:
    """Runs inside the child process."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from core.embeddings.factory import make_embedder
    from core.settings.model import EmbeddingSettings

    texts = {lang: load_passages(lang, count) for lang in ("en", "zh")}
    started = time.perf_counter()
    embedder = make_embedder(EmbeddingSettings(model=model))
    result: dict = {"model": model, "id": embedder.id, "load_s": round(time.perf_counter() - started, 2)}
    embedder.embed_documents(texts["en"][:4])  # warm-up: first-call allocations, lazy inits
    for lang, batch in texts.items():
        started = time.perf_counter()
        vectors = embedder.embed_documents(batch)
        seconds = time.perf_counter() - started
        assert vectors.shape == (len(batch), embedder.dimension)
        result[lang] = {
            "texts": len(batch),
            "seconds": round(seconds, 2),
            "texts_per_s": round(len(batch) / seconds, 2),
            "chars_per_s": round(sum(map(len, batch)) / seconds),
        }
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.count)))
        return

    print(f"passages: first {args.count} of xquad-en and xquad-zh; cpus: {len(os.sched_getaffinity(0))}")
    header = f"{'model':24} {'run':>3} {'load s':>7} {'en texts/s':>10} {'en chars/s':>10} {'zh texts/s':>10} {'zh chars/s':>10} {'peak RSS MB':>11}  load avg"
    print(header)
    for model in args.models:
        for run in range(1, args.repeat + 1):
            before = os.getloadavg()[0]
            out = subprocess.run(
                [sys.executable, __file__, "--child", model, "--count", str(args.count)],
                capture_output=True, text=True, check=True,
            ).stdout
            r = json.loads(out.strip().splitlines()[-1])
            after = os.getloadavg()[0]
            print(
                f"{model:24} {run:>3} {r['load_s']:>7} {r['en']['texts_per_s']:>10} {r['en']['chars_per_s']:>10} "
                f"{r['zh']['texts_per_s']:>10} {r['zh']['chars_per_s']:>10} {r['peak_rss_mb']:>11}  {before:.1f}->{after:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
