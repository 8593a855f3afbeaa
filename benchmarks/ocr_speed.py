"""OCR speed and accuracy on dense text pages whose text layer is the reference.

    PYTHONPATH=. .venv/bin/python benchmarks/ocr_speed.py [--rounds 2] [--dpi 300]

The pages of the shared two-column paper (unstructured__multi-column-2p.pdf, A4, ~5,000
characters each) are rendered at --dpi and OCR'd under each configuration; the character error
rate (CER: edit distance over the text without whitespace / reference length) is taken against
the same page's text layer read by our PDF parser. Configurations alternate round by round in
one process, so a machine shared with other jobs loads them alike: compare the ratios and the
CPU-seconds per page (all threads of this process), not wall time alone.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.parsers import ocr  # noqa: E402
from core.parsers.base import ParseContext  # noqa: E402
from core.parsers.pdf_ocr import render_for_ocr  # noqa: E402
from core.parsers.registry import parse_bytes  # noqa: E402
from core.settings.model import ParsingSettings  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "shared" / "data" / "docs"
PAGES_PDF = "unstructured__multi-column-2p.pdf"

# name -> module settings of core.parsers.ocr
CONFIGS: dict[str, dict[str, int]] = {
    "before: one recogniser, 2 threads": {"REC_WORKERS": 1, "ONNX_THREADS": 2, "DET_MAX_SIDE": 1280},
    "after: 2 recognisers x 1 thread": {"REC_WORKERS": 2, "ONNX_THREADS": 2, "DET_MAX_SIDE": 1280},
    "after, detector at 960 px": {"REC_WORKERS": 2, "ONNX_THREADS": 2, "DET_MAX_SIDE": 960},
}


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row per character of ``a``."""
    if not a or not b:
        return max(len(a), len(b))
    codes_b = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    row = np.arange(len(b) + 1, dtype=np.int32)
    offsets = np.arange(len(b) + 1, dtype=np.int32)
    for i, ch in enumerate(a, start=1):
        cost = (codes_b != ord(ch)).astype(np.int32)
        candidates = np.empty_like(row)
        candidates[0] = i
        candidates[1:] = np.minimum(row[1:] + 1, row[:-1] + cost)  # deletion, substitution
        # insertions: new[j] = min(candidates[j], new[j-1] + 1), as a running minimum
        row = np.minimum.accumulate(candidates - offsets) + offsets
    return int(row[-1])


def squash(text: str) -> str:
    return "".join(text.split())


def _configure(settings: dict[str, int]) -> None:
    ocr.release_engine()
    for name, value in settings.items():
        setattr(ocr, name, value)
    if ocr._rec_pool is not None:  # rebuilt with the new worker count
        ocr._rec_pool.shutdown()
        ocr._rec_pool = None
    ocr._worker()
    ocr.get_engine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dpi", type=int, default=300)
    parser.add_argument("--configs", nargs="*", help="names (prefixes) of CONFIGS to run")
    args = parser.parse_args()
    import pypdfium2 as pdfium

    data = (DOCS / PAGES_PDF).read_bytes()
    layer = parse_bytes(data, PAGES_PDF, ParseContext(settings=ParsingSettings(ocr_enabled=False)))
    references = [squash(part.text) for part in layer.parts]
    document = pdfium.PdfDocument(data)
    images = [render_for_ocr(document[i], args.dpi) for i in range(len(document))]
    chosen = {k: v for k, v in CONFIGS.items() if not args.configs or any(k.startswith(c) for c in args.configs)}
    totals = {name: [0.0, 0.0, 0, 0, 0] for name in chosen}  # cpu, wall, pages, edits, reference chars
    for round_no in range(args.rounds):
        for name, settings in chosen.items():
            _configure(settings)
            for image, reference in zip(images, references):
                wall0, cpu0 = time.perf_counter(), time.process_time()
                text = ocr.ocr_text(image, timeout_seconds=600, what="benchmark page")
                wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
                edits = edit_distance(squash(text), reference)
                t = totals[name]
                t[0] += cpu
                t[1] += wall
                t[2] += 1
                t[3] += edits
                t[4] += len(reference)
                print(f"round {round_no + 1} {name}: {cpu:.2f} s CPU, {wall:.2f} s wall, CER {edits / len(reference):.2%}")
    print(f"\n{len(images)} pages of {PAGES_PDF} at {args.dpi} DPI, {args.rounds} rounds")
    base = None
    for name, (cpu, wall, pages, edits, chars) in totals.items():
        per_cpu, per_wall = cpu / pages, wall / pages
        base = base or (per_cpu, per_wall)
        print(f"{name}: {per_cpu:.2f} CPU-s/page ({1 / per_cpu:.2f} pages per CPU-second), {per_wall:.2f} s wall/page "
              f"({1 / per_wall:.2f} pages/s); wall ratio to first {per_wall / base[1]:.2f}, CPU ratio {per_cpu / base[0]:.2f}; "
              f"CER {edits / chars:.2%}")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; load average {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
