"""The dashboard over a real engine (Streamlit AppTest): the Knowledge Bases page's Metadata tab
defines a field, sets a file's value and imports a CSV with a bad row; the Chat page's filter box
narrows a strict answer to files inside it (outside: the fixed reply, no model)."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import button, engine, goto, new_app, sign_up, texts  # noqa: F401 (fixture)
from tests.dashboard.test_chat_page import NO_HIT, QUESTION, _bubbles
from tests.dashboard.test_knowledge_bases import POLICY


def _ready(engine):  # noqa: F811
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "差旅")
    engine.ingest(actor, kb.id, [Upload("差旅.md", POLICY.encode()), Upload("menu.md", "# Canteen\n\nLunch at 11:30.".encode())])
    engine.save_settings(actor, {"strict": {"rag_strict_mode": True, "rag_strict_min_similarity": 0.3}})
    return at, actor, kb


def test_the_metadata_tab_defines_sets_and_imports(engine):  # noqa: F811
    at, actor, kb = _ready(engine)
    at = goto(at, "kbs")
    at.text_input(key="meta_field_name").input("部门")
    button(at, "Add field").click()
    at.run()
    assert not at.exception, at.exception
    assert "Field '部门' added." in texts(at)
    files = {f.name: f.id for f in engine.list_files(actor, kb.id)}
    at.selectbox(key="meta_file").select(files["差旅.md"])
    at.run()
    at.text_input(key="meta_value_部门").input("财务")
    button(at, "Save values").click()
    at.run()
    assert not at.exception, at.exception
    assert engine.file_metadata(actor, files["差旅.md"]).values["部门"] == "财务"
    at.run()  # another rerun keeps the confirmation until the next action
    assert "Values of '差旅.md' saved." in texts(at) and "Field '部门' added." not in texts(at)
    at.file_uploader(key="meta_csv").set_value([("m.csv", "file,部门\nmenu.md,后勤\nnope.md,x\n".encode(), "text/csv")])
    button(at, "Import values").click()
    at.run()
    assert "1 file(s) updated." in texts(at)
    assert "Line 3: no file 'nope.md' in this knowledge base" in [e.value for e in at.error]
    assert engine.file_metadata(actor, files["menu.md"]).values["部门"] == "后勤"


def test_the_chat_filter_box_narrows_a_strict_answer(engine):  # noqa: F811
    at, actor, kb = _ready(engine)
    engine.define_metadata_field(actor, kb.id, "部门", "text")
    files = {f.name: f.id for f in engine.list_files(actor, kb.id)}
    engine.set_file_metadata(actor, files["差旅.md"], {"部门": "财务"})
    at = goto(at, "chat")
    at.text_input(key="chat_filter").input("部门=后勤")
    at.chat_input[0].set_value(QUESTION).run()
    assert not at.exception, at.exception
    assert NO_HIT in _bubbles(at)[-1] and "model not called" in _bubbles(at)[-1]
    at.text_input(key="chat_filter").input("部门=财务")
    at.chat_input[0].set_value(QUESTION).run()
    assert "提前三天申请" in _bubbles(at)[-1]


def test_the_retrieval_test_takes_the_same_filter(engine):  # noqa: F811
    at, actor, kb = _ready(engine)
    engine.define_metadata_field(actor, kb.id, "部门", "text")
    files = {f.name: f.id for f in engine.list_files(actor, kb.id)}
    engine.set_file_metadata(actor, files["menu.md"], {"部门": "后勤"})
    at = goto(at, "kbs")
    at.text_input(key="rtest_query").input("Lunch canteen")
    at.text_input(key="rtest_filter").input("部门=后勤")
    button(at, "Search").click()
    at.run()
    assert not at.exception, at.exception
    shown = texts(at)
    assert "· menu.md**" in shown and "· 差旅.md**" not in shown  # the hits' headers: "**#1 · menu.md** · …"
    at.text_input(key="rtest_filter").input("部门=财务")  # no file has it: nothing is shown
    button(at, "Search").click()
    at.run()
    assert not at.exception, at.exception
    assert "· menu.md**" not in texts(at) and "· 差旅.md**" not in texts(at)
