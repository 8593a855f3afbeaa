"""e5's speed by calling thread: the main thread, a worker thread, the main thread again.

torch starts an OpenMP team per calling thread; with more team threads than cores libgomp stops
spinning between parallel regions. Since every torch call runs on one thread of the process
(core/embeddings/_torch_threads.py) the three figures should be the same.

    .venv/bin/python benchmarks/torch_threads.py [--passages 640]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.embeddings.e5_torch import E5TorchEmbedder  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "retrieval" / "xquad-en-chunks" / "corpus.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--passages", type=int, default=640)
    args = ap.parse_args()
    texts = [json.loads(line)["text"] for line in CORPUS.open(encoding="utf-8")][: args.passages]
    embedder = E5TorchEmbedder()

    def run() -> float:
        t0 = time.perf_counter()
        for start in range(0, len(texts), 32):
            embedder.embed_documents(texts[start:start + 32])
        return time.perf_counter() - t0

    run()  # warm up
    worker = ThreadPoolExecutor(max_workers=1)
    rows = [("main thread", [run() for _ in range(3)]),
            ("a worker thread", [worker.submit(run).result() for _ in range(3)]),
            ("main thread again", [run() for _ in range(3)])]
    print(f"e5 ({embedder.precision}), {len(texts)} passages in batches of 32, seconds per pass:")
    for name, times in rows:
        print(f"  {name:18} " + "  ".join(f"{t:.2f}" for t in times))


if __name__ == "__main__":
    main()
