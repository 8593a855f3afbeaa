"""MANIFEST.tsv rows of the shared documents, for the docx/pptx/html parser tests."""

from __future__ import annotations

import csv
import re

from tests.conftest import SHARED_DATA


def manifest_phrases(kind: str) -> list[tuple[str, list[str]]]:
    """(file name, must_appear phrases) for every shared document of ``kind``."""
    path = SHARED_DATA / "docs" / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    out = []
    for row in rows:
        if row["type"] == kind:
            phrases = [p.strip() for p in (row["must_appear(|| separated)"] or "").split("||") if p.strip()]
            out.append((row["file"], phrases))
    return out


def squash(text: str) -> str:
    """Whitespace removed, for comparisons that survive reflowed or spaceless text."""
    return re.sub(r"\s+", "", text)
