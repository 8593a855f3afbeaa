"""What hostile or oversized files cost to ingest: wall time and peak resident memory (issue 17).

Each case runs in a fresh process: the file is generated (tests/reliability/hostile.py), an
engine is opened on a temporary data folder (embedded store, the hash-64 embedder) and the file
is ingested into a knowledge base (the TIFF also into a chat, as an attachment). The budget is
the app's: under 4 GB resident while ingesting. Peak RSS is the process's own (VmHWM), reset after
the input is built, so building a bomb does not count.

    .venv/bin/python benchmarks/hostile_inputs.py [--cases tiff-12 docx-60mb ...]
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
sys.path.insert(0, str(ROOT))

POLICY_LINE = "差旅制度 travel rules for every employee, paragraph text of a policy. "


def _build(case: str) -> tuple[str, bytes]:
    from tests.reliability import hostile

    if case == "tiff-12":  # 12 pages of 12000 x 12000 behind a small first page
        return "scan.tiff", hostile.multipage_tiff([(64, 64)] + [(12000, 12000)] * 12)
    if case == "tiff-60":
        return "scan.tiff", hostile.multipage_tiff([(64, 64)] + [(12000, 12000)] * 60)
    if case == "docx-60mb":  # 400,000 paragraphs: 60 MB of XML
        return "bomb.docx", hostile.docx_with_body([hostile.paragraph(POLICY_LINE)], repeat=400_000)
    if case == "docx-4m-elements":  # 4.1M empty paragraphs, no text
        return "empty.docx", hostile.docx_with_body(["<w:p/>"], repeat=4_100_000)
    if case == "xlsx-1m-rows":
        return "log.xlsx", hostile.long_xlsx(1_000_000)
    if case == "html-deep":
        return "deep.html", hostile.deep_html(5000)
    if case == "pdf-page-loop":  # issue 36 §24: the page tree lists itself
        return "loop.pdf", hostile.looping_pdf()
    if case.startswith("pdf-flate-"):  # a content stream of spaces, deflated: ~1 MB on disk a GB
        return "bomb.pdf", hostile.flate_bomb_pdf(int(case.removeprefix("pdf-flate-").removesuffix("mb")))
    if case.startswith("docx-blank-"):  # whitespace between paragraphs, not counted as text
        return "blank.docx", hostile.blank_docx(int(case.removeprefix("docx-blank-").removesuffix("mb")))
    raise SystemExit(f"unknown case {case}")


CASES = ["tiff-12", "tiff-60", "docx-60mb", "docx-4m-elements", "xlsx-1m-rows", "html-deep",
         "pdf-page-loop", "pdf-flate-1024mb", "pdf-flate-3072mb", "docx-blank-450mb"]


def _reset_peak() -> None:
    """Forget the peak so far (building the input is not what is measured): Linux's clear_refs 5."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def _peak_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def run_one(case: str) -> dict:
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.ingest.service import Upload
    from core.types import SYSTEM_ACTOR

    name, data = _build(case)
    _reset_peak()
    with tempfile.TemporaryDirectory() as folder:
        engine = Engine(RuntimeConfig.from_env(Path(folder) / "data"))
        engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"}})
        engine.create_kb(SYSTEM_ACTOR, "kb")
        started = time.perf_counter()
        if case.startswith("tiff"):
            chat = engine.create_chat(SYSTEM_ACTOR, "bench")
            [result] = engine.attach_to_chat(SYSTEM_ACTOR, chat.id, [Upload(name, data)])
        else:
            [result] = engine.ingest(SYSTEM_ACTOR, "kb", [Upload(name, data)])
        seconds = time.perf_counter() - started
        engine.close()
    return {"case": case, "file_mb": len(data) / 1e6, "status": result.status, "seconds": seconds,
            "message": (result.error or "; ".join(result.warnings))[:140],
            "peak_rss_mb": _peak_mb()}  # this process's own peak since the input was built


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="*", default=CASES, choices=CASES)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one)))
        return
    print(f"{'case':18} {'file MB':>8} {'status':8} {'seconds':>8} {'peak RSS MB':>11}  message")
    for case in args.cases:
        proc = subprocess.run([sys.executable, __file__, "--one", case], capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            print(f"{case:18} died with exit code {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(proc.stdout.splitlines()[-1])
        print(f"{case:18} {r['file_mb']:8.2f} {r['status']:8} {r['seconds']:8.1f} {r['peak_rss_mb']:11.0f}  {r['message']}")


if __name__ == "__main__":
    main()
