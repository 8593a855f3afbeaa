"""Rows per second of a curated-answer CSV import (issue 36 §26): 2,000 rows into a fresh
knowledge base, then the same file again (every row an update), with the product's default
embedder unless ``--embedder`` says otherwise. Run against any checkout to compare:

    PYTHONPATH=<checkout> .venv/bin/python benchmarks/curated_import.py [--rows 2000] [--embedder hash-64]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--embedder", default="", help="a local model name (default: the settings' default)")
    args = ap.parse_args()
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.types import SYSTEM_ACTOR

    lines = ["question,answer"] + [f"How is case {i} of the travel policy handled?,Answer {i}: see section {i % 40}."
                                   for i in range(args.rows)]
    data = ("\n".join(lines) + "\n").encode()
    with tempfile.TemporaryDirectory() as folder:
        engine = Engine(RuntimeConfig.from_env(Path(folder) / "data"))
        if args.embedder:
            engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": args.embedder}})
        engine.create_kb(SYSTEM_ACTOR, "kb")
        engine.import_curated_csv(SYSTEM_ACTOR, "kb", "question,answer\nwarm-up?,yes\n")  # loads the model
        for label in ("new rows", "updates"):
            started = time.perf_counter()
            report = engine.import_curated_csv(SYSTEM_ACTOR, "kb", data)
            seconds = time.perf_counter() - started
            print(f"{label:9} {args.rows} rows in {seconds:7.1f} s = {args.rows / seconds:8.1f} rows/s "
                  f"(added {report.added}, updated {report.updated}, errors {len(report.errors)})", flush=True)
        engine.close()


if __name__ == "__main__":
    main()
