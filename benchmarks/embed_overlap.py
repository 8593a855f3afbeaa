"""Where e5's time goes, and whether ingestion's Python work could hide behind it in one process.

Prints, for the same passages in batches of 32:
- tokenisation alone (our pure-Python Unigram, on the calling thread, serial);
- the model alone as today (one torch thread, two intra-op threads);
- the model as two calls at once, each on its own thread with one intra-op thread;
- those two calls with the main thread running plain Python meanwhile (what ingestion's parse,
  BM25 and database work is): the GIL is handed to the torch threads only between operations,
  so the model waits on it.

    .venv/bin/python benchmarks/embed_overlap.py [--passages 320] [--rounds 3]

Diagnosis for issue 22 item 1 (docs/ingestion.md): the figures say whether overlapping the
pipeline with embedding can work inside one process.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.embeddings._torch_threads import on_torch_thread  # noqa: E402
from core.embeddings.e5_torch import PASSAGE_PREFIX, E5TorchEmbedder  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "retrieval" / "xquad-en-chunks" / "corpus.jsonl"
BATCH = 32


def _one_intra_op_thread(embedder: E5TorchEmbedder, batches: list) -> None:
    torch.set_num_threads(1)  # this thread's own OpenMP setting
    for windows in batches:
        embedder._window_means(windows)


def _two_at_once(embedder: E5TorchEmbedder, batches: list, *, busy_main: bool) -> tuple[float, int]:
    threads = [threading.Thread(target=_one_intra_op_thread, args=(embedder, batches[i::2])) for i in range(2)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    loops = 0
    if busy_main:
        while any(t.is_alive() for t in threads):
            loops += len({i: str(i) for i in range(300)})  # plain Python, as a pipeline step is
    for t in threads:
        t.join()
    return time.perf_counter() - started, loops


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--passages", type=int, default=320)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    texts = [json.loads(line)["text"] for line in args.corpus.open(encoding="utf-8")][: args.passages]
    embedder = E5TorchEmbedder(self_check=False)
    prefixed = [PASSAGE_PREFIX + t for t in texts]
    slices = [prefixed[s:s + BATCH] for s in range(0, len(prefixed), BATCH)]
    embedder.embed_documents(texts[:BATCH])  # warm up
    intra_op = on_torch_thread(torch.get_num_threads)
    print(f"{len(texts)} passages, batches of {BATCH}, torch intra-op threads {intra_op}")
    for rnd in range(args.rounds):
        t0 = time.perf_counter()
        batches = [embedder._windows(s) for s in slices]
        tokenise = time.perf_counter() - t0
        on_torch_thread(torch.set_num_threads, intra_op)  # in case a one-thread call changed it for all
        t0 = time.perf_counter()
        for windows in batches:
            on_torch_thread(embedder._window_means, windows)
        today = time.perf_counter() - t0
        two, _ = _two_at_once(embedder, batches, busy_main=False)
        busy, loops = _two_at_once(embedder, batches, busy_main=True)
        per = 1000 / len(texts)
        print(f"round {rnd + 1}: tokenise {tokenise * per:.2f} ms/passage; model, as today {today * per:.2f}; "
              f"two one-thread calls {two * per:.2f} ({two / today:.2f}x); "
              f"the same beside a busy Python thread {busy * per:.2f} ({busy / today:.1f}x, {loops} loops)",
              flush=True)


if __name__ == "__main__":
    main()
