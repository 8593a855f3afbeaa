"""Curated-answer CSV (issue 36 §26): no cell a spreadsheet would run, in a comma-, semicolon- or
tab-separated reading; an owner imports her own export back; a round trip keeps every value
exactly, for the owner and for an admin; an import is one embedding batch and one transaction."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timezone

import pytest

from core.errors import NotFound
from core.types import SYSTEM_ACTOR as ADMIN

# values that begin a formula somewhere a spreadsheet looks: at the start, after a ';' or a tab or
# a line break (a ';'- or tab-separated reading splits the cell there), with spaces before it; and
# values that hold our own escape, which must come back as they were
TRICKY = [
    "=1+1", "+SUM(A1)", "-2+3", "@cmd", "Price; =HYPERLINK(\"http://x\")", "a;+b", "x\t=1", "x\t\t@y",
    "first line\n=2*3", "a;   -1", "'=already quoted", "''", "'plain apostrophe", "it's; 'fine'", "a;'=b",
    "no formula at all", "semi;colon", "-", "=",
]
RUNS = re.compile(r"^[ ]*[=+\-@]")


def _cells_a_spreadsheet_sees(text: str, separator: str) -> list[str]:
    """Every cell of ``text`` read with ``separator`` (the quoting a spreadsheet may ignore, too)."""
    cells = [c for row in csv.reader(io.StringIO(text), delimiter=separator) for c in row]
    cells += [c for line in text.splitlines() for c in re.split(r"[;\t,]", line)]
    return cells


@pytest.mark.parametrize("value", TRICKY)
def test_neutralised_cells_run_nowhere_and_come_back_exactly(value):
    from core.curated.csv_io import neutralised, restored

    written = neutralised(value)
    assert restored(written) == value
    for separator in (",", ";", "\t"):
        for cell in _cells_a_spreadsheet_sees(written, separator):
            assert not RUNS.match(cell.strip('"')), (value, separator, cell)


def _approved(engine, actor, kb, question, answer, by="", when=None):
    engine.add_curated(actor, kb, question, answer, approved_by=by or None, approved_at=when)


def test_the_owner_imports_her_own_export_back_and_values_stay_exactly(engine, people):
    admin, bob, carol = people
    engine.create_kb(bob, "bob-hr")
    for i, value in enumerate(TRICKY):
        engine.add_curated(bob, "bob-hr", f"question {i}: {value}", f"answer: {value}" if i % 2 else value)
    when = datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc)  # an approval an admin recorded in her knowledge base
    _approved(engine, admin, "bob-hr", "Signed off by the board?", "Yes, by the board.", "HR board", when)
    before = sorted((e.question, e.answer, e.approved_by, e.approved_at) for e in engine.curated_answers(bob, "bob-hr"))
    text = engine.export_curated_csv(bob, "bob-hr")
    for separator in (",", ";", "\t"):
        assert not [c for c in _cells_a_spreadsheet_sees(text, separator) if RUNS.match(c.strip('"'))]

    report = engine.import_curated_csv(bob, "bob-hr", text)  # into the same knowledge base
    assert report.errors == [] and report.updated == len(before)
    engine.create_kb(bob, "bob-copy")
    report = engine.import_curated_csv(bob, "bob-copy", text)  # into another of hers
    assert report.errors == [] and report.added == len(before)
    for kb in ("bob-hr", "bob-copy"):
        after = sorted((e.question, e.answer, e.approved_by, e.approved_at) for e in engine.curated_answers(bob, kb))
        assert after == before
    assert engine.export_curated_csv(bob, "bob-copy") == text  # and the export of the copy is the same file

    engine.create_kb(admin, "admin-copy")  # an admin's round trip keeps the values as well
    assert engine.import_curated_csv(admin, "admin-copy", text).errors == []
    assert engine.export_curated_csv(admin, "admin-copy") == text


def test_an_owner_still_cannot_sign_for_someone_else_or_backdate(engine, people):
    _, bob, carol = people
    engine.create_kb(bob, "bob-hr")
    engine.create_kb(carol, "carol-hr")
    when = "2025-03-01T09:30:00+00:00"
    _approved(engine, ADMIN, "carol-hr", "Q?", "A.", "HR board", datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc))
    report = engine.import_curated_csv(bob, "bob-hr", (
        "question,answer,approved_by,approved_at\n"
        f"Q?,A.,HR board,{when}\n"          # on record only in carol's knowledge base, not his
        f"New?,Yes.,bob,{when}\n"            # his own name, an earlier time: backdating
        f"Q2?,A2.,HR board,\n"))
    assert [(e.line, e.message) for e in report.errors] == [
        (2, "only an admin may record an approval by someone else"),
        (3, "only an admin may record an earlier approval time"),
        (4, "only an admin may record an approval by someone else"),
    ]
    _approved(engine, ADMIN, "bob-hr", "Q?", "A.", "HR board", datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc))
    report = engine.import_curated_csv(bob, "bob-hr", f"question,answer,approved_by,approved_at\nQ?,Other answer.,HR board,{when}\n")
    assert [e.message for e in report.errors] == ["only an admin may record an approval by someone else"]  # not for another answer
    with pytest.raises(NotFound):  # his private knowledge base does not exist for her
        engine.import_curated_csv(carol, "bob-hr", "question,answer\nQ,A\n")


def test_an_import_is_one_embedding_batch_and_one_transaction(engine, people):
    """Through a real embedding API (the loopback stand-in) and SQLAlchemy's own commit event: 300
    rows were 300 embedding requests and 300 write transactions, each scanning every row before."""
    from sqlalchemy import event

    from tests.fakes.embedding_server import fake_embedding_server

    _, bob, _ = people
    engine.create_kb(bob, "bob-hr")
    text = "question,answer\n" + "".join(f"Question number {i}?,Answer {i}.\n" for i in range(300))
    commits = []
    with fake_embedding_server() as api:
        engine.save_settings(ADMIN, {"embedding": {"provider": "openai", "base_url": api.openai_url,
                                                   "model": "fake-embed", "batch_size": 100}})
        db = engine.services.curated._rt.db

        def counted(conn) -> None:
            commits.append(1)

        event.listen(db.engine, "commit", counted)
        try:
            report = engine.import_curated_csv(bob, "bob-hr", text)
        finally:
            event.remove(db.engine, "commit", counted)
        assert report.added == 300 and report.errors == []
        assert api.batch_sizes() == [100, 100, 100]  # one batch, cut by the API client's batch size
    assert len(commits) == 1  # the rows in one write transaction
