"""Static checks: translations complete, pages thin over the engine, core free of streamlit."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from dashboard.locales.en import STRINGS as EN
from dashboard.locales.zh import STRINGS as ZH

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_IN_PAGES = {"qdrant_client", "qdrant_edge", "sqlmodel", "sqlalchemy", "openai", "ollama"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_both_languages_have_the_same_keys_and_chinese_is_chinese():
    assert set(EN) == set(ZH)
    assert all(re.search(r"[\u4e00-\u9fff]", v) or v in ("BM25", "JSONL") or not re.search(r"[A-Za-z]{4}", v)
               or "{" in v or "BM25" in v or "CSV" in v or "PDF" in v or "OCR" in v or "A/B" in v for v in ZH.values())
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", v)) for v in ZH.values()) > 0.9 * len(ZH)


def test_every_literal_key_used_in_the_code_is_translated():
    used = set()
    for path in list((ROOT / "dashboard").rglob("*.py")) + list((ROOT / "pages").glob("*.py")):
        used |= set(re.findall(r"\bt\(\s*[\"']([a-z_]+\.[\w.]+)[\"']", path.read_text(encoding="utf-8")))
    assert used, "the scan found no t() calls"
    assert sorted(used - set(EN)) == []


def test_pages_never_import_vendor_sdks_or_the_database():
    offenders = {p.name: _imports(p) & FORBIDDEN_IN_PAGES for p in (ROOT / "pages").glob("*.py")}
    assert len(offenders) >= 5
    assert {k: v for k, v in offenders.items() if v} == {}


def test_core_never_imports_streamlit():
    assert [p for p in (ROOT / "core").rglob("*.py") if "streamlit" in _imports(p)] == []


def test_pages_stay_small():
    assert {p.name: n for p in (ROOT / "pages").glob("*.py") if (n := len(p.read_text().splitlines())) > 200} == {}
