"""Knowledge Bases page, Curated answers tab: add, list, delete, a CSV with a bad row; another
user reading a public knowledge base sees no forms — against a real engine."""

from __future__ import annotations

from tests.dashboard.conftest import button, goto, new_app, sign_up, texts
from tests.dashboard.test_knowledge_bases import _frames, admin_with_kb


def test_add_list_import_and_delete_curated_answers(engine):
    at = admin_with_kb("hr")
    assert "No curated answers yet." in texts(at)
    at.text_input(key="curated_question").input("How many days of annual leave do new employees get?")
    at.text_area(key="curated_answer").input("New employees get 15 days.")
    button(at, "Add curated answer").click()
    at.run()
    assert not at.exception, at.exception
    assert "Curated answer added." in texts(at)
    frames = _frames(at)
    assert "New employees get 15 days." in frames and "alice" in frames
    alice = engine.actor_for(_alice_id(engine))
    [kb] = engine.list_kbs(alice)
    entries = engine.curated_answers(alice, kb.id)
    assert [e.approved_by for e in entries] == ["alice"]

    # the delete form lists the entry; deleting it empties the table
    at.multiselect(key="curated_pick").select(entries[0].id)
    button(at, "Delete selected").click()
    at.run()
    assert "Deleted 1 curated answer." in texts(at) and "No curated answers yet." in texts(at)


def _alice_id(engine) -> str:
    from core.types import SYSTEM_ACTOR

    return next(u.id for u in engine.list_users(SYSTEM_ACTOR) if u.name == "alice")


def test_a_csv_import_reports_its_bad_row_by_line_and_keeps_the_good_one(engine):
    at = admin_with_kb("人事")
    at.file_uploader(key="curated_csv").set_value([("faq.csv", "question,answer\n试用期是多长时间？,三个月。\n,缺少问题\n".encode(), "text/csv")])
    button(at, "Import").click()
    at.run()
    assert not at.exception, at.exception
    assert "Added 1, updated 0." in texts(at)
    assert "Line 3: the curated question is empty" in [e.value for e in at.error]
    assert "三个月。" in _frames(at)
