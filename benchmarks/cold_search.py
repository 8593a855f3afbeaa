"""A cold CLI ``search``: a new ``python -m core search`` process per run, wall and CPU seconds.

Builds a small knowledge base (this repo's README and docs/retrieval.md) with the default local
embedder in a temporary data folder, then runs the search ``--runs`` times, each in a fresh
process, and prints wall and CPU (user + system, from the child's rusage) per run and their
medians. CPU is the figure to compare on a shared machine; ``--repo`` runs another checkout's
code on the same data (e.g. main, for a before/after ratio).

Run:  .venv/bin/python benchmarks/cold_search.py [--runs 3] [--repo /path/to/other/checkout]
What one cold run spends on imports: ``python -X importtime -m core search ...`` (stderr).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUERY = "how are dense and keyword scores fused"


def run(repo: Path, env: dict[str, str], *args: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "core", *args], cwd=repo, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repo", type=Path, default=REPO, help="the checkout whose code runs the searches")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "RAGDESK_DATA_DIR": tmp, "HF_HUB_OFFLINE": "1"}
        run(REPO, env, "kb", "create", "docs")
        run(REPO, env, "ingest", "--kb", "docs", str(REPO / "README.md"), str(REPO / "docs" / "retrieval.md"))
        rows = [run(args.repo.resolve(), env, "search", QUERY, "--kb", "docs") for _ in range(args.runs)]
    for i, (wall, cpu) in enumerate(rows, 1):
        print(f"run {i}: wall {wall:.2f} s  cpu {cpu:.2f} s")
    print(f"cold search ({args.repo}): wall p50 {statistics.median(r[0] for r in rows):.2f} s  "
          f"cpu p50 {statistics.median(r[1] for r in rows):.2f} s  (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
