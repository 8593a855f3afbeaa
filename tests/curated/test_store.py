"""Curated answers in the engine: who may store them, what is stored, what a bad row costs."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core.errors import AlreadyExists, InvalidInput, NotFound, PermissionDenied
from core.types import SYSTEM_ACTOR as ADMIN

Q = "How many days of annual leave do new employees get?"


def test_owner_adds_and_the_approval_names_them(engine, people):
    _, bob, _ = people
    engine.create_kb(bob, "bob-hr")
    entry = engine.add_curated(bob, "bob-hr", Q, "New employees get 15 days.")
    assert entry.approved_by == "bob" and entry.approved_at.startswith(str(datetime.now(timezone.utc).year))
    assert [e.question for e in engine.curated_answers(bob, "bob-hr")] == [Q]


def test_a_plain_user_cannot_add_to_or_change_another_users_kb(engine, people):
    _, bob, carol = people
    engine.create_kb(bob, "bob-hr", visibility="public")
    entry = engine.add_curated(bob, "bob-hr", Q, "15 days.")
    with pytest.raises(PermissionDenied):
        engine.add_curated(carol, "bob-hr", "Who approves expenses?", "Your manager.")
    with pytest.raises(PermissionDenied):
        engine.update_curated(carol, entry.id, answer="100 days.")
    with pytest.raises(PermissionDenied):
        engine.delete_curated(carol, entry.id)
    with pytest.raises(PermissionDenied):
        engine.import_curated_csv(carol, "bob-hr", "question,answer\nQ,A\n")
    # a public knowledge base: carol reads its curated answers (they answer her questions anyway)
    assert [e.answer for e in engine.curated_answers(carol, "bob-hr")] == ["15 days."]


def test_a_private_kbs_curated_answers_do_not_exist_for_others(engine, people):
    _, bob, carol = people
    engine.create_kb(bob, "bob-private")
    entry = engine.add_curated(bob, "bob-private", Q, "15 days.")
    with pytest.raises(NotFound):
        engine.curated_answers(carol, "bob-private")
    with pytest.raises(NotFound):
        engine.delete_curated(carol, entry.id)
    with pytest.raises(NotFound):
        engine.export_curated_csv(carol, "bob-private")
    answer = engine.ask(carol, Q, temporary=True)  # her own knowledge bases only: no curated answer
    assert answer.curated is None


def test_an_admin_may_change_any_and_record_another_approver_a_user_may_not(engine, people):
    admin, bob, _ = people
    engine.create_kb(bob, "bob-hr")
    with pytest.raises(PermissionDenied):
        engine.add_curated(bob, "bob-hr", Q, "15 days.", approved_by="the CEO")
    entry = engine.add_curated(admin, "bob-hr", Q, "15 days.", approved_by="HR board",
                               approved_at=datetime(2025, 1, 31, tzinfo=timezone.utc))
    assert (entry.approved_by, entry.approved_at) == ("HR board", "2025-01-31T00:00:00+00:00")
    changed = engine.update_curated(bob, entry.id, answer="16 days.")
    assert changed.answer == "16 days." and changed.approved_by == "bob"  # a changed answer is approved anew


def test_bad_input_is_refused_clearly(engine):
    with pytest.raises(InvalidInput, match="question is empty"):
        engine.add_curated(ADMIN, "policy", "  ", "x")
    with pytest.raises(InvalidInput, match="answer is empty"):
        engine.add_curated(ADMIN, "policy", "Q?", "")
    engine.add_curated(ADMIN, "policy", Q, "15 days.")
    with pytest.raises(AlreadyExists):
        engine.add_curated(ADMIN, "policy", "how many days of ANNUAL leave do new employees get", "other")
    with pytest.raises(NotFound):
        engine.add_curated(ADMIN, "no-such-kb", "Q?", "A")


def test_csv_import_reports_bad_rows_by_line_and_keeps_the_good_ones(engine, people):
    _, bob, _ = people
    engine.create_kb(bob, "bob-hr")
    engine.add_curated(bob, "bob-hr", Q, "15 days.")
    csv_text = (
        "question,answer,approved_by\n"
        "Who approves expense reports?,Your line manager.\n"          # line 2: added
        ",an answer without a question\n"                              # line 3: bad
        "\"A question\nover two lines?\",Yes.\n"                       # line 4-5: added
        "Who approves expense reports?,Someone else.\n"                # line 6: repeats line 2
        f"{Q},16 days from now on.\n"                                  # line 7: updates the existing one
        "Signed by someone else?,No.,the CEO\n"                         # line 8: bob may not sign for the CEO
        "One cell too many?,Yes.,bob,surplus\n"                          # line 9: nothing is dropped unread
    )
    report = engine.import_curated_csv(bob, "bob-hr", csv_text.encode("utf-8"))
    assert (report.added, report.updated) == (2, 1)
    assert [(e.line, e.message) for e in report.errors] == [
        (3, "the curated question is empty"),
        (6, "the same question as line 2"),
        (8, "only an admin may record an approval by someone else"),
        (9, "more cells than the 3 columns the header names"),
    ]
    answers = {e.question: e.answer for e in engine.curated_answers(bob, "bob-hr")}
    assert answers[Q] == "16 days from now on." and answers["A question\nover two lines?"] == "Yes."
    with pytest.raises(InvalidInput, match="not UTF-8"):
        engine.import_curated_csv(bob, "bob-hr", "question,answer\nQ,Ä\n".encode("latin-1"))
    with pytest.raises(InvalidInput, match="unknown CSV column"):
        engine.import_curated_csv(bob, "bob-hr", "question,answer,colour\nQ,A,red\n")


def test_export_imports_back_with_approvals_and_no_formula_runs(engine):
    engine.add_curated(ADMIN, "policy", "=HYPERLINK(\"http://x\")?", "-1 is not a formula either",
                       approved_by="HR board", approved_at=datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc))
    engine.add_curated(ADMIN, "policy", "试用期是多长时间？", "试用期为三个月。")
    text = engine.export_curated_csv(ADMIN, "policy")
    lines = text.splitlines()
    assert lines[0] == "question,answer,approved_by,approved_at"
    assert lines[1].startswith("\"'=HYPERLINK(\"\"http://x\"\")?\",'-1 is not a formula either,HR board,2025-03-01T09:30:00+00:00")
    engine.create_kb(ADMIN, "copy")
    report = engine.import_curated_csv(ADMIN, "copy", text)
    assert (report.added, report.errors) == (2, [])
    copied = [(e.question, e.answer, e.approved_by, e.approved_at) for e in engine.curated_answers(ADMIN, "copy")]
    original = [(e.question, e.answer, e.approved_by, e.approved_at) for e in engine.curated_answers(ADMIN, "policy")]
    assert copied == original


def test_deleting_the_kb_deletes_its_curated_answers(engine):
    from sqlmodel import select

    from core.db.models import CuratedAnswer

    engine.create_kb(ADMIN, "temp")
    engine.add_curated(ADMIN, "temp", Q, "15 days.")
    engine.delete_kb(ADMIN, "temp")
    with engine._db.read() as s:
        assert s.exec(select(CuratedAnswer)).all() == []
