"""Words people read, in both languages (issue 18): select boxes show their options in words, not
raw values; multiselects' placeholders follow the reader's language; every storage-audit check
has a name; file types are named; the retrieval test says what it shows and what passes."""

from __future__ import annotations

import re

from core.ingest.service import Upload
from tests.dashboard.conftest import button, goto, new_app, sign_up, texts

RAW = re.compile(r"^[a-z0-9_+\-]+$")  # a raw enum value: lower case, no spaces


def _switch_to_chinese(at):
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_settings_select_boxes_show_words_not_raw_values_in_both_languages(engine):
    at = goto(sign_up(new_app(), "alice"), "settings")
    boxes = {s.label: s.options for s in at.selectbox if s.key and s.key.startswith("set.")}
    assert boxes, "no settings select boxes found"
    raw = {label: [o for o in options if RAW.match(o)] for label, options in boxes.items()}
    assert {label: values for label, values in raw.items() if values} == {}
    assert "Offline extractive answerer (no model)" in next(o for lbl, o in boxes.items() if "extractive" in " ".join(o).lower())
    _switch_to_chinese(at)
    options = [o for s in at.selectbox if s.key and s.key.startswith("set.") for o in s.options]
    assert "离线摘录式回答（无需模型）" in options and "用通用知识回答，并注明来源" in options
    assert not [o for o in options if RAW.match(o)]


def test_multiselect_placeholders_follow_the_language(engine):
    at = goto(sign_up(new_app(), "alice"), "files")
    actor = engine.actor_for(at.session_state["user_id"])
    engine.create_kb(actor, "handbook")
    at.run()
    assert at.multiselect(key="fm_status").proto.placeholder == "Choose one or more…"
    _switch_to_chinese(at)
    assert at.multiselect(key="fm_status").proto.placeholder == "可选择一项或多项…"
    assert at.multiselect(key="fm_kb").proto.placeholder == "可选择一项或多项…"


def test_every_storage_audit_check_has_a_name(engine):
    at = goto(sign_up(new_app(), "alice"), "files")
    button(at, "Run audit").click()
    at.run()
    checks = list(next(d.value for d in at.dataframe if "Check" in d.value.columns)["Check"])
    assert "Originals kept for Retry" in checks and "Expired web-search collections (removed)" in checks
    assert not [c for c in checks if "_" in c or c.startswith("audit.")], checks


def test_retrieval_test_says_what_it_shows_and_what_passes(engine):
    at = goto(sign_up(new_app(), "alice"), "kbs")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "handbook")
    engine.ingest(actor, kb.id, [Upload("leave.md", "# Leave\n\nAnnual leave is 15 days.\n\n# Lunch\n\nLunch at noon.\n".encode()),
                                 Upload("travel.md", "# Travel\n\nTrain tickets are refunded.\n".encode())])
    at.run()
    at.text_input(key="rtest_query").input("annual leave")
    at.number_input(key=next(n.key for n in at.number_input if n.key.startswith("rtest_min_"))).set_value(0.5)
    next(b for b in at.button if b.label == "Search").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    summary = next(c.value for c in at.caption if c.value.startswith("Showing"))
    assert re.match(r"Showing (\d+) passages?\b", summary) and "minimum score 0.50" in summary, summary
    assert "hit(s)" not in texts(at)


def test_file_types_are_named_in_the_reader_language():
    import streamlit as st

    from dashboard.page import fmt_type

    st.session_state["lang"] = "zh"
    try:
        assert fmt_type("text/html") == "网页" and fmt_type("application/vnd.google-apps.document") == "谷歌文档"
    finally:
        st.session_state["lang"] = "en"
    assert fmt_type("application/vnd.google-apps.spreadsheet") == "Google Sheets"
    assert fmt_type("application/vnd.google-apps.presentation") == "Google Slides"
    assert fmt_type("application/vnd.google-apps.jam") == "Google file"
