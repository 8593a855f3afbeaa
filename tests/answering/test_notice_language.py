"""Notices beside an answer follow the question's language, as the fixed replies do (issue 36):
a Chinese question never gets English notices, in strict or normal mode, and no notice in the
engine is written as one language's text outside the catalog (core/notices.py)."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

from core.notices import ENGLISH_PLURALS, NOTICES
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_mistyped_mention_in_strict_mode_is_noticed_in_the_question_language(engine):
    configure(engine, strict={"rag_strict_mode": True})
    zh = engine.ask(ADMIN, "#polcy 一线城市住宿费每晚不超过多少？", temporary=True)
    en = engine.ask(ADMIN, "#polcy how much is the hotel allowance per night?", temporary=True)
    assert zh.notices and all(CJK.search(n) for n in zh.notices), zh.notices
    assert any("严格模式不会反问" in n and "#policy" in n for n in zh.notices), zh.notices
    assert any(n.startswith("strict mode does not ask back") and "Did you mean #policy" in n for n in en.notices)


def test_an_unknown_mention_in_normal_mode_is_noticed_in_the_question_language(engine):
    zh = engine.ask(ADMIN, "#demo-handbok 一线城市住宿费每晚不超过多少？", temporary=True)
    assert zh.notices and all(CJK.search(n) for n in zh.notices), zh.notices
    assert any("没有名为「demo-handbok」的知识库或文件" in n for n in zh.notices), zh.notices


def test_every_notice_has_both_languages_with_the_same_values():
    fields = {key: {lang: {f for _, f, _, _ in string.Formatter().parse(text) if f} for lang, text in texts.items()}
              for key, texts in NOTICES.items()}
    assert {k for k, t in NOTICES.items() if set(t) != {"en", "zh"} or not CJK.search(t["zh"])} == set()
    # English may name a plural word or verb the catalog fills in ({passages}, {is_are}); every other
    # value is in both
    assert {k: f for k, f in fields.items() if f["en"] - set(ENGLISH_PLURALS) != f["zh"]} == {}


def _literal(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def test_no_notice_is_written_as_text_outside_the_catalog():
    """A notice made as a literal text would reach a Chinese question in English."""
    found = []
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args or not _literal(node.args[0]):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = func.value if isinstance(func, ast.Attribute) else None
            appends_notice = name == "append" and isinstance(owner, ast.Attribute) and owner.attr == "notices"
            said_as_text = (name == "notice" and owner is not None) or name == "on_notice"  # notice("key") is the catalog
            if said_as_text or appends_notice:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
