"""Must-appear phrases of the shared documents, read through `python -m core parse`.

    PYTHONPATH=. .venv/bin/python benchmarks/manifest_phrases.py [--files NAME ...]

Each shared document (data/docs/MANIFEST.tsv) is parsed by the CLI in a fresh process, as an
admin would, and its must_appear phrases are looked for in the output (whitespace ignored).
Prints found/total per file and overall, and the warnings the parse reported.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT.parent / "shared" / "data" / "docs"


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", nargs="*", help="only these shared files")
    parser.add_argument("--docs", type=Path, default=DOCS, help="folder holding MANIFEST.tsv")
    parser.add_argument("--ocr-timeout", type=float, help="parsing.ocr_page_timeout_seconds for the runs "
                        "(a loaded machine needs more than the default 60 s a page)")
    args = parser.parse_args()
    with open(args.docs / "MANIFEST.tsv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    env = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", str(ROOT)), HF_HUB_OFFLINE="1")
    scratch = tempfile.TemporaryDirectory()  # a fresh data folder: settings from the environment only
    env["RAGDESK_DATA_DIR"] = scratch.name
    if args.ocr_timeout:
        env["RAGDESK_PARSING__OCR_PAGE_TIMEOUT_SECONDS"] = str(args.ocr_timeout)
    found_total = wanted_total = failed = 0
    for row in rows:
        name = row["file"]
        phrases = [p.strip() for p in row["must_appear(|| separated)"].split("||") if p.strip()]
        if args.files and name not in args.files:
            continue
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "core", "parse", str(args.docs / name)],
                             capture_output=True, text=True, env=env, cwd=ROOT)
        seconds = time.perf_counter() - start
        text = _squash(run.stdout)
        found = [p for p in phrases if _squash(p) in text]
        found_total += len(found)
        wanted_total += len(phrases)
        failed += run.returncode != 0
        status = "ok" if run.returncode == 0 else f"exit {run.returncode}: {run.stderr.strip().splitlines()[-1:]}"
        missing = [p for p in phrases if p not in found]
        print(f"{name}: {len(found)}/{len(phrases)} ({seconds:.1f} s, {status})" + (f" missing {missing}" if missing else ""))
    share = found_total / wanted_total if wanted_total else 0.0
    print(f"TOTAL must_appear phrases found: {found_total}/{wanted_total} ({share:.0%}); files failing: {failed}")


if __name__ == "__main__":
    main()
