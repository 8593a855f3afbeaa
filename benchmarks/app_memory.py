"""Resident memory of the engine as the dashboard runs it: idle, then while ingesting.

Budget: under 2 GB idle (engine + one embedder; OCR not loaded), under 4 GB while ingesting
(a scanned PDF pulls in OCR). Prints RSS after each step and the peak.

    .venv/bin/python benchmarks/app_memory.py [--embedder multilingual-e5-small]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.types import SYSTEM_ACTOR  # noqa: E402

DOCS = ROOT.parent / "shared" / "data" / "docs"


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class PeakSampler:
    """Samples RSS every 50 ms (ru_maxrss alone can't tell a phase's own peak)."""

    def __init__(self):
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, rss_mb())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", default="multilingual-e5-small")
    args = ap.parse_args()
    print(f"python started: {rss_mb():.0f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(RuntimeConfig(data_dir=Path(tmp), database_url=f"sqlite:///{tmp}/m.db"))
        engine.save_settings(SYSTEM_ACTOR, {"embedding": {"model": args.embedder}})
        engine.embedder()
        engine.create_kb(SYSTEM_ACTOR, "kb")
        engine.search(SYSTEM_ACTOR, "warm up", ["kb"])
        time.sleep(1)
        idle = rss_mb()
        print(f"idle, engine + {args.embedder} loaded: {idle:.0f} MB (budget 2048)")
        files = sorted(p for p in DOCS.iterdir() if p.suffix in (".pdf", ".docx", ".pptx", ".md", ".html", ".png", ".jpeg", ".jpg"))
        with PeakSampler() as sampler:
            t0 = time.perf_counter()
            results = engine.ingest_paths(SYSTEM_ACTOR, "kb", files)
            took = time.perf_counter() - t0
        ok = sum(r.ok for r in results)
        print(f"ingested {ok}/{len(results)} shared documents (OCR included) in {took:.0f} s: "
              f"peak {sampler.peak:.0f} MB (budget 4096)")
        time.sleep(1)
        print(f"idle after ingest: {rss_mb():.0f} MB")
        engine.close()
    print(f"process peak (ru_maxrss): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
