"""Build the binary documents of the strict_meaning set: the two workbooks as .xlsx, the slides as .pptx.

Usage: python make_docs.py OUT_DIR [--with-sources]

The sources (CSV sheets, slides Markdown) are committed; the binaries are not, so they are made here,
deterministically, with openpyxl and python-pptx. --with-sources also copies the Markdown documents, so
OUT_DIR holds the whole knowledge base as a user would upload it (Markdown, .xlsx, .pptx).
"""

from __future__ import annotations

import argparse
import csv
import re
import shutil
import sys
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Font
from pptx import Presentation
from pptx.util import Inches, Pt

HERE = Path(__file__).resolve().parent
# Workbook file name -> {sheet title -> CSV source}; the order is the workbook's sheet order.
WORKBOOKS = {
    "lingbridge_rates_2025.xlsx": {
        "Translation rates (EUR)": "lingbridge_rates_en.csv",
        "口译与设备报价（人民币）": "lingbridge_rates_zh.csv",
    },
    "kestrel_tariff_2025.xlsx": {
        "Parcel tariff 2025 (EUR)": "kestrel_tariff_en.csv",
        "仓储与增值服务报价（人民币）": "kestrel_tariff_zh.csv",
    },
}
WORKBOOK_NAME = "lingbridge_rates_2025.xlsx"  # the first workbook (kept for older callers)
SHEETS = WORKBOOKS[WORKBOOK_NAME]
SLIDES_SOURCE = "en_engineering_onboarding_slides.md"
DECK_NAME = "en_engineering_onboarding_slides.pptx"
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def cell_value(text: str) -> str | int | float | None:
    """A spreadsheet holds numbers as numbers: '0.14' becomes 0.14, so its text is what the CSV shows."""
    if text == "":
        return None
    if NUMBER.match(text):
        return float(text) if "." in text else int(text)
    return text


def write_workbook(out_dir: Path, name: str = WORKBOOK_NAME) -> Path:
    workbook = Workbook()
    workbook.remove(workbook.active)
    for title, source in WORKBOOKS[name].items():
        sheet = workbook.create_sheet(title)
        with open(HERE / source, encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle):
                sheet.append([cell_value(text) for text in row])
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        sheet.freeze_panes = "A2"
    path = out_dir / name
    workbook.save(path)
    return path


def write_workbooks(out_dir: Path) -> list[Path]:
    return [write_workbook(out_dir, name) for name in WORKBOOKS]


def parse_slides(markdown: str) -> list[dict]:
    """Each '## ' section is a slide: its bullets, an optional Markdown table, and a 'Notes:' paragraph."""
    slides: list[dict] = []
    for section in re.split(r"^## ", markdown, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        body, _, notes = body.partition("Notes:")
        bullets = [line[2:].strip() for line in body.splitlines() if line.startswith("- ")]
        table = [
            [cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in body.splitlines()
            if line.startswith("|") and not re.match(r"^\|[\s\-|]+\|$", line.strip())
        ]
        slides.append({"title": title.strip(), "bullets": bullets, "table": table, "notes": " ".join(notes.split())})
    return slides


def write_deck(out_dir: Path) -> Path:
    deck = Presentation()
    deck.slide_width, deck.slide_height = Inches(13.333), Inches(7.5)
    for spec in parse_slides((HERE / SLIDES_SOURCE).read_text(encoding="utf-8")):
        slide = deck.slides.add_slide(deck.slide_layouts[5 if spec["table"] else 1])  # title only / title+content
        slide.shapes.title.text = spec["title"]
        if spec["table"]:
            rows, cols = len(spec["table"]), len(spec["table"][0])
            shape = slide.shapes.add_table(rows, cols, Inches(0.8), Inches(1.8), Inches(11.7), Inches(0.5) * rows)
            for r, row in enumerate(spec["table"]):
                for c, text in enumerate(row):
                    shape.table.cell(r, c).text = text
        else:
            body = slide.placeholders[1].text_frame
            body.text = spec["bullets"][0]
            for bullet in spec["bullets"][1:]:
                body.add_paragraph().text = bullet
            for paragraph in body.paragraphs:
                paragraph.font.size = Pt(24)
        if spec["notes"]:
            slide.notes_slide.notes_text_frame.text = spec["notes"]
    path = out_dir / DECK_NAME
    deck.save(path)
    return path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--with-sources", action="store_true", help="also copy the Markdown documents")
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    made = [*write_workbooks(args.out_dir), write_deck(args.out_dir)]
    if args.with_sources:
        for source in sorted(HERE.glob("*.md")):
            if source.name not in {"README.md", SLIDES_SOURCE}:
                made.append(Path(shutil.copy(source, args.out_dir / source.name)))
    for path in made:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
