"""Parser speed on the shared documents: text-PDF pages/s and OCR pages/s, with peak RSS.

    .venv/bin/python benchmarks/parsers.py                 # both, default settings
    .venv/bin/python benchmarks/parsers.py --ocr --dpi 200 --det-side 960
    .venv/bin/python benchmarks/parsers.py --text --repeat 20

Wall time is noisy on a shared machine, so CPU time (all threads of this process) is printed
beside it; OCR also reports how many of the MANIFEST's must_appear phrases were read, so a
faster setting shows what it costs in accuracy.
"""

from __future__ import annotations

import argparse
import csv
import re
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.parsers.base import ParseContext  # noqa: E402
from core.parsers.registry import parse_bytes  # noqa: E402
from core.settings.model import ParsingSettings  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "shared" / "data" / "docs"
TEXT_PDFS = [
    "unstructured__embedded-images-tables.pdf",
    "unstructured__korean-text-with-tables.pdf",
    "pdfplumber__nics-background-checks-2015-11.pdf",
    "unstructured__multi-column-2p.pdf",
    "unstructured__DA-1p.pdf",
]
OCR_FILES = [
    "unstructured__loremipsum-flat.pdf",
    "rapidocrpdf__image.pdf",
    "unstructured__chi_sim_image.jpeg",
    "unstructured__english-and-korean.png",
    "unstructured__layout-parser-paper-with-table.jpg",
]


def _phrases() -> dict[str, list[str]]:
    with open(DOCS / "MANIFEST.tsv", encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {r["file"]: [p.strip() for p in r["must_appear(|| separated)"].split("||") if p.strip()] for r in rows}


def _word_recall(name: str, text: str) -> float | None:
    """Share of the words of the reference transcript (shared expected/*.json) that were read."""
    import json
    from collections import Counter

    reference = DOCS / "expected" / f"{name}.expected.json"
    if not reference.exists():
        return None
    expected = Counter(re.findall(r"[a-z0-9]+", " ".join(e.get("text", "") for e in json.loads(reference.read_text())).lower()))
    got = Counter(re.findall(r"[a-z0-9]+", text.lower()))
    return sum((expected & got).values()) / max(1, sum(expected.values()))


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def bench_text(repeat: int) -> None:
    ctx = ParseContext(settings=ParsingSettings(ocr_enabled=False))
    blobs = {name: (DOCS / name).read_bytes() for name in TEXT_PDFS}
    for name, data in blobs.items():  # warm-up: imports, first-call caches
        parse_bytes(data, name, ctx)
    pages = 0
    wall0, cpu0 = _clock()
    for _ in range(repeat):
        for name, data in blobs.items():
            pages += parse_bytes(data, name, ctx).metadata["pages"]
    wall1, cpu1 = _clock()
    wall, cpu = wall1 - wall0, cpu1 - cpu0
    print(f"text PDFs: {pages} pages ({len(blobs)} files x {repeat}) in {wall:.2f} s wall, {cpu:.2f} s CPU: "
          f"{pages / wall:.1f} pages/s wall, {pages / cpu:.1f} pages per CPU-second")


def bench_ocr(dpi: int, only: list[str] | None) -> None:
    from core.parsers import ocr

    phrases = _phrases()
    ctx = ParseContext(settings=ParsingSettings(ocr_dpi=dpi, ocr_page_timeout_seconds=600))
    wall0, cpu0 = _clock()
    ocr.get_engine()
    wall1, cpu1 = _clock()
    print(f"OCR engine load: {wall1 - wall0:.2f} s wall; params {ocr.engine_params()}; render DPI {dpi}")
    total_wall = total_cpu = 0.0
    hits = wanted = pages = 0
    for name in only or OCR_FILES:
        data = (DOCS / name).read_bytes()
        wall0, cpu0 = _clock()
        doc = parse_bytes(data, name, ctx)
        wall1, cpu1 = _clock()
        found = [p for p in phrases[name] if _squash(p) in _squash(doc.text)]
        hits += len(found)
        wanted += len(phrases[name])
        pages += 1
        total_wall += wall1 - wall0
        total_cpu += cpu1 - cpu0
        missing = [p for p in phrases[name] if p not in found]
        recall = _word_recall(name, doc.text)
        print(f"  {name}: {wall1 - wall0:.2f} s wall, {cpu1 - cpu0:.2f} s CPU, phrases {len(found)}/{len(phrases[name])}"
              + (f", word recall vs expected/ {recall:.1%}" if recall is not None else "")
              + (f" missing {missing}" if missing else ""))
    print(f"OCR: {pages} pages in {total_wall:.2f} s wall, {total_cpu:.2f} s CPU: {pages / total_wall:.2f} pages/s wall, "
          f"{pages / total_cpu:.2f} pages per CPU-second; must_appear phrases {hits}/{wanted}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--text", action="store_true", help="text-PDF benchmark only")
    parser.add_argument("--ocr", action="store_true", help="OCR benchmark only")
    parser.add_argument("--repeat", type=int, default=10, help="passes over the text PDFs")
    parser.add_argument("--dpi", type=int, default=ParsingSettings().ocr_dpi, help="render DPI for scanned PDF pages")
    parser.add_argument("--det-side", type=int, help="override ocr.DET_MAX_SIDE")
    parser.add_argument("--rec-batch", type=int, help="override ocr.REC_BATCH")
    parser.add_argument("--threads", type=int, help="override ocr.ONNX_THREADS")
    parser.add_argument("--cls", action="store_true", help="turn the angle classifier on")
    parser.add_argument("--files", nargs="*", help="OCR only these shared files")
    args = parser.parse_args()
    if not DOCS.exists():
        sys.exit(f"shared documents not found at {DOCS}")
    from core.parsers import ocr

    if args.det_side:
        ocr.DET_MAX_SIDE = args.det_side
    if args.rec_batch:
        ocr.REC_BATCH = args.rec_batch
    if args.threads:
        ocr.ONNX_THREADS = args.threads
    if args.cls:
        ocr.USE_ANGLE_CLASSIFIER = True
    both = not (args.text or args.ocr)
    if args.text or both:
        bench_text(args.repeat)
    if args.ocr or both:
        bench_ocr(args.dpi, args.files)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
