"""Long one-paragraph text (issue 36): how long a file that makes more chunks than
``parsing.max_chunks_per_file`` takes to be refused. The cap was checked after chunking, and chunking
a 16 MB one-paragraph HTML took a minute; it is refused while the text is read now.

Each case runs in a fresh process (an engine on a temporary data folder, the hash-64 embedder,
default chunking), the file generated here:

    .venv/bin/python benchmarks/long_paragraph.py [--cases html-4mb html-8mb html-16mb md-30mb]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ["html-4mb", "html-8mb", "html-16mb", "md-30mb", "md-1mb"]
SENTENCE = "The travel policy applies to every employee on a business trip, and receipts are kept for audit. "


def build(case: str) -> tuple[str, bytes]:
    kind, size = case.split("-")
    text = (SENTENCE * (int(size.removesuffix("mb")) * 1_000_000 // len(SENTENCE) + 1))
    text = text[: int(size.removesuffix("mb")) * 1_000_000]
    if kind == "html":
        return "long.html", f"<html><head><title>Policy</title></head><body><p>{text}</p></body></html>".encode()
    return "long.md", ("# Policy\n\n" + text + "\n").encode()


def run_one(case: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.ingest.service import Upload
    from core.types import SYSTEM_ACTOR

    name, data = build(case)
    with tempfile.TemporaryDirectory() as folder:
        engine = Engine(RuntimeConfig.from_env(Path(folder) / "data"))
        engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"}})
        engine.create_kb(SYSTEM_ACTOR, "kb")
        started = time.perf_counter()
        [result] = engine.ingest(SYSTEM_ACTOR, "kb", [Upload(name, data)])
        seconds = time.perf_counter() - started
        engine.close()
    peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) / 1024
    return {"case": case, "mb": len(data) / 1e6, "status": result.status, "chunks": result.chunks,
            "seconds": seconds, "peak_mb": peak, "message": (result.error or "")[:110]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="*", default=CASES[:4], choices=CASES)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one)))
        return
    print(f"{'case':10} {'MB':>5} {'status':8} {'chunks':>6} {'seconds':>8} {'peak MB':>8}  message", flush=True)
    for case in args.cases:
        proc = subprocess.run([sys.executable, __file__, "--one", case], capture_output=True, text=True, cwd=ROOT,
                              timeout=1800)
        if proc.returncode != 0:
            print(f"{case:10} died ({proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}", flush=True)
            continue
        r = json.loads(proc.stdout.splitlines()[-1])
        print(f"{case:10} {r['mb']:5.1f} {r['status']:8} {r['chunks']:6} {r['seconds']:8.1f} {r['peak_mb']:8.0f}  "
              f"{r['message']}", flush=True)


if __name__ == "__main__":
    main()
