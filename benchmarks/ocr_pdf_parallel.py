"""Pages per second of a scanned PDF through the PDF parser, one OCR process vs a pool of them.

    PYTHONPATH=. .venv/bin/python benchmarks/ocr_pdf_parallel.py [--pages 20] [--workers 1 2] [--dpi 300]

The scanned PDF is made here: the two pages of the shared two-column paper
(unstructured__multi-column-2p.pdf, ~5,000 characters each) rendered at --dpi and saved as
image-only pages, alternately, --pages in all. Each run parses it with ``parsing.ocr_workers``
set to one value of --workers (core/parsers/ocr_pool.py; 1 = in this process). Printed per run:
wall seconds and pages/s, CPU seconds of this process and of the OCR processes, the CER against
the pages' text layer, the peak RSS of the largest OCR process, and this process's. On a
shared machine compare the CPU figures and the ratios; pages/s wall needs idle cores.
"""

from __future__ import annotations

import argparse
import io
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ocr_speed import DOCS, PAGES_PDF, edit_distance, squash  # noqa: E402

from core.parsers.base import ParseContext  # noqa: E402
from core.parsers.pdf_ocr import render_for_ocr  # noqa: E402
from core.parsers.registry import parse_bytes  # noqa: E402
from core.settings.model import ParsingSettings  # noqa: E402


def scanned_pdf(pages: int, dpi: int) -> tuple[bytes, list[str]]:
    """An image-only PDF of ``pages`` pages and each page's reference text."""
    import pypdfium2 as pdfium
    from PIL import Image

    data = (DOCS / PAGES_PDF).read_bytes()
    layer = parse_bytes(data, PAGES_PDF, ParseContext(settings=ParsingSettings(ocr_enabled=False)))
    references = [squash(part.text) for part in layer.parts]
    document = pdfium.PdfDocument(data)
    images = [Image.fromarray(render_for_ocr(document[i], dpi)[:, :, ::-1]) for i in range(len(document))]
    chosen = [images[i % len(images)] for i in range(pages)]
    out = io.BytesIO()
    chosen[0].save(out, format="PDF", resolution=dpi, save_all=True, append_images=chosen[1:])
    return out.getvalue(), [references[i % len(references)] for i in range(pages)]


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--dpi", type=int, default=300)
    args = ap.parse_args()
    data, references = scanned_pdf(args.pages, args.dpi)
    print(f"{args.pages} scanned pages ({len(data) / 1e6:.1f} MB) of {PAGES_PDF} at {args.dpi} DPI")
    base = None
    for workers in args.workers:
        ctx = ParseContext(settings=ParsingSettings(ocr_workers=workers, ocr_dpi=args.dpi))
        cpu_self, cpu_children = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        doc = parse_bytes(data, "scanned.pdf", ctx)
        wall = time.perf_counter() - started
        cpu_self, cpu_children = cpu(resource.RUSAGE_SELF) - cpu_self, cpu(resource.RUSAGE_CHILDREN) - cpu_children
        texts = {p.page: squash(p.text) for p in doc.parts}
        edits = sum(edit_distance(texts.get(n, ""), ref) for n, ref in enumerate(references, start=1))
        cer = edits / sum(len(r) for r in references)
        base = base or wall
        print(f"ocr_workers={workers} (pool {doc.metadata.get('ocr_workers', 1)}): {wall:.1f} s wall, "
              f"{args.pages / wall:.2f} pages/s, wall ratio to first {wall / base:.2f}; CPU {cpu_self:.1f} s here + "
              f"{cpu_children:.1f} s in OCR processes ({(cpu_self + cpu_children) / args.pages:.2f} CPU-s/page); "
              f"CER {cer:.2%}" + (f"; peak RSS per OCR process {doc.metadata['ocr_worker_peak_rss_mb']} MB"
                                  if "ocr_worker_peak_rss_mb" in doc.metadata else ""))
    print(f"peak RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; "
          f"load average {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
