"""Validate questions.jsonl of the strict_meaning set and print its counts.

Usage: python check_set.py [--shared-data DIR]

Checks the schema, one split per document (the zh-policy questions: half by hash of the id), and that every
fact of a covered question occurs verbatim in its document: the Markdown/CSV source, and for the .xlsx/.pptx
made by make_docs.py also the text read back from the generated file. Exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLASSES = {
    "covered": {"paraphrase", "framing", "cross_language", "table"},
    "near_miss": {"group_not_named", "condition_not_covered", "neighbouring_item", "number_not_given", "other_attribute"},
    "off_topic": {"off_topic"},
}
BASE_FIELDS = ["id", "doc", "split", "lang", "doc_lang", "kind", "class", "question"]
EXTRA_FIELD = {"covered": "facts", "near_miss": "note", "off_topic": None}
SHARED_PREFIX = "zh-policy/"
# The split of every document in this folder, as fixed in the README (the sheets of one workbook share one).
DOC_SPLIT = {
    "en_travel_expense_policy.md": "tune",
    "en_managed_database_sla.md": "tune",
    "en_engineering_onboarding_slides.md": "tune",
    "鹿鸣L7智能门锁_常见问题.md": "tune",
    "青禾物流_仓库安全管理规定.md": "tune",
    "kestrel_tariff_en.csv": "tune",
    "kestrel_tariff_zh.csv": "tune",
    "en_information_security_policy.md": "report",
    "en_label_printer_manual.md": "report",
    "lingbridge_rates_en.csv": "report",
    "lingbridge_rates_zh.csv": "report",
    "青禾数据_员工手册.md": "report",
    "客服系统迁移项目_启动会纪要.md": "report",
}


def generated_texts() -> dict[str, str]:
    """Text read back from the generated workbooks (per sheet source) and deck, keyed by source file name."""
    sys.path.insert(0, str(HERE))
    import make_docs  # the generator beside this file
    from openpyxl import load_workbook
    from pptx import Presentation

    texts: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as out:
        for name, sheets in make_docs.WORKBOOKS.items():
            workbook = load_workbook(make_docs.write_workbook(Path(out), name))
            for title, source in sheets.items():
                rows = workbook[title].iter_rows(values_only=True)
                texts[source] = "\n".join(" | ".join("" if v is None else str(v) for v in row) for row in rows)
        deck = Presentation(make_docs.write_deck(Path(out)))
        parts = []
        for slide in deck.slides:
            for shape in slide.shapes:
                if shape.has_text_frame:
                    parts.append(shape.text_frame.text)
                if getattr(shape, "has_table", False) and shape.has_table:
                    parts.extend(cell.text for row in shape.table.rows for cell in row.cells)
            if slide.has_notes_slide:
                parts.append(slide.notes_slide.notes_text_frame.text)
        texts[make_docs.SLIDES_SOURCE] = "\n".join(parts)
    return texts


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def shared_split(ids: list[str]) -> dict[str, str]:
    """zh-policy questions: ranked by sha256 of the id, the first half (rounded up) is report."""
    ranked = sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
    cut = (len(ranked) + 1) // 2
    return {i: ("report" if n < cut else "tune") for n, i in enumerate(ranked)}


def validate(records: list[dict], shared_data: Path | None) -> list[str]:
    errors: list[str] = []
    ids = Counter(r.get("id") for r in records)
    errors += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    generated = generated_texts()
    sources: dict[str, str | None] = {}
    split_of_doc: dict[str, set] = defaultdict(set)
    lang_of_doc: dict[str, set] = defaultdict(set)
    for r in records:
        rid = r.get("id", "?")
        kind = r.get("kind")
        if kind not in CLASSES:
            errors.append(f"{rid}: kind {kind!r}")
            continue
        expected = BASE_FIELDS + ([EXTRA_FIELD[kind]] if EXTRA_FIELD[kind] else [])
        if sorted(r) != sorted(expected):
            errors.append(f"{rid}: fields {sorted(r)} != {sorted(expected)}")
            continue
        if r["class"] not in CLASSES[kind]:
            errors.append(f"{rid}: class {r['class']!r} is not one of {kind}")
        if r["lang"] not in ("en", "zh") or r["doc_lang"] not in ("en", "zh"):
            errors.append(f"{rid}: lang/doc_lang")
        if r["split"] not in ("tune", "report"):
            errors.append(f"{rid}: split {r['split']!r}")
        if not r["question"].strip():
            errors.append(f"{rid}: empty question")
        if kind == "near_miss" and not (isinstance(r["note"], str) and r["note"].strip()):
            errors.append(f"{rid}: near miss without note")
        split_of_doc[r["doc"]].add(r["split"])
        lang_of_doc[r["doc"]].add(r["doc_lang"])
        doc = r["doc"]
        if doc not in sources:
            path = ((shared_data or HERE) / doc) if doc.startswith(SHARED_PREFIX) else HERE / doc
            if doc.startswith(SHARED_PREFIX) and shared_data is None:
                sources[doc] = None
            elif path.is_file():
                sources[doc] = path.read_text(encoding="utf-8")
            else:
                errors.append(f"{rid}: document {doc} not found at {path}")
                sources[doc] = None
        if kind == "covered":
            facts = r["facts"]
            if not (isinstance(facts, list) and facts and all(isinstance(f, str) and f.strip() for f in facts)):
                errors.append(f"{rid}: facts must be a non-empty list of strings")
                continue
            text = sources[doc]
            if text is not None and not any(f in text for f in facts):
                errors.append(f"{rid}: no fact of {facts} occurs in {doc}")
            if doc in generated and not any(f in generated[doc] for f in facts):
                errors.append(f"{rid}: no fact of {facts} survives in the generated file made from {doc}")
    for doc, splits in split_of_doc.items():
        if not doc.startswith(SHARED_PREFIX) and len(splits) != 1:
            errors.append(f"{doc}: questions in both splits")
        elif not doc.startswith(SHARED_PREFIX) and splits != {DOC_SPLIT.get(doc)}:
            errors.append(f"{doc}: split {sorted(splits)} but the README fixes {DOC_SPLIT.get(doc)!r}")
        if len(lang_of_doc[doc]) != 1:
            errors.append(f"{doc}: several doc_lang values")
    shared = [r for r in records if r.get("doc", "").startswith(SHARED_PREFIX)]
    wanted = shared_split([r["id"] for r in shared])
    errors += [f"{r['id']}: split should be {wanted[r['id']]} by hash" for r in shared if r["split"] != wanted[r["id"]]]
    return errors


def print_counts(records: list[dict]) -> None:
    def pair(r: dict) -> str:
        return f"{r['lang']}→{r['doc_lang']}"

    print(f"{len(records)} questions over {len({r['doc'] for r in records})} documents\n")
    print("| split | kind | class | en→en | zh→en | zh→zh | en→zh | all |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    pairs = ["en→en", "zh→en", "zh→zh", "en→zh"]
    for split in ("tune", "report"):
        for kind, classes in CLASSES.items():
            for cls in sorted(classes) + ["(all)"]:
                rows = [r for r in records if r["split"] == split and r["kind"] == kind and cls in ("(all)", r["class"])]
                if not rows or (cls == "(all)" and len(classes) == 1):
                    continue
                counts = Counter(pair(r) for r in rows)
                print(f"| {split} | {kind} | {cls} | " + " | ".join(str(counts[p]) for p in pairs) + f" | {len(rows)} |")
    print("\nquestion length (characters), covered vs near miss, by question language:")
    for lang in ("en", "zh"):
        for kind in ("covered", "near_miss"):
            lengths = [len(r["question"]) for r in records if r["lang"] == lang and r["kind"] == kind]
            if lengths:
                print(f"  {lang} {kind:9s} n={len(lengths):3d} mean={sum(lengths) / len(lengths):5.1f}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared-data", type=Path, default=Path(os.environ.get("RAGDESK_SHARED_DATA", "/work/shared/data")))
    args = parser.parse_args(argv)
    shared_data = args.shared_data if args.shared_data.is_dir() else None
    if shared_data is None:
        print(f"note: {args.shared_data} not found; facts of the zh-policy questions not checked")
    records = load(HERE / "questions.jsonl")
    errors = validate(records, shared_data)
    for error in errors:
        print("ERROR", error)
    if not errors:
        print_counts(records)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
