"""How long a cancel takes to end a running file of a 40-file upload (a worker claims 16 at once).

40 notes (3 XQuAD passages each, ~2 KB) are queued in one knowledge base on a fresh data folder
with the default embedder; once the first batch is running, one file of it is cancelled (the
third of the batch, while the files before it are being worked on) and the time until its job is
finished (its outcome written, as ``jobs wait`` sees it) is printed; the other 39 must end
indexed. Each round on a fresh data folder.

    .venv/bin/python benchmarks/cancel_in_batch.py [--rounds 3] [--embedder multilingual-e5-small]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from core.jobs import queue  # noqa: E402
from core.types import SYSTEM_ACTOR as A  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "retrieval" / "xquad-en-chunks" / "corpus.jsonl"


def notes(n: int) -> list[Upload]:
    texts = [json.loads(line)["text"] for line in CORPUS.open(encoding="utf-8")][: 3 * n]
    return [Upload(f"note_{i:02d}.md", (f"# Note {i}\n\n" + "\n\n".join(texts[3 * i:3 * i + 3])).encode())
            for i in range(n)]


def one_round(embedder: str, files: int) -> tuple[float, str, int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        engine = Engine(RuntimeConfig.from_env(data))
        try:
            engine.save_settings(A, {"embedding": {"provider": "local", "model": embedder}})
            engine.embedder().embed_query("warm up")  # the model loaded before the clock starts
            engine.create_kb(A, "notes")
            started = time.monotonic()
            future = engine.submit_ingest(A, "notes", notes(files))
            while True:
                running = [j for j in engine.jobs(A, ids=future.job_ids) if j.state == "running"]
                if len(running) > 2:
                    break
                time.sleep(0.05)
            victim = sorted(running, key=lambda j: j.created_at)[2]
            asked = time.monotonic()
            engine.cancel_job(A, victim.id)
            while not queue.finished(engine.job(A, victim.id)):
                time.sleep(0.02)
            took = time.monotonic() - asked
            results = future.result(timeout=1800)
            total = time.monotonic() - started
            indexed = sum(r.status == "indexed" for r in results)
            return took, engine.job(A, victim.id).state, indexed, total
        finally:
            engine.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--embedder", default="multilingual-e5-small")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(f"{args.files} files, embedder {args.embedder}; cancel one file of the first claimed batch:")
    for r in range(args.rounds):
        took, state, indexed, total = one_round(args.embedder, args.files)
        print(f"  round {r + 1}: ended {state} {took:.2f} s after the request; {indexed}/{args.files - 1} "
              f"others indexed; the whole upload {total:.1f} s", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
