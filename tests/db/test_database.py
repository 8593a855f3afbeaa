"""The metadata database: WAL + BEGIN IMMEDIATE on SQLite, and the same code on PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import select

from core.db.database import Database, redact_url, sqlite_url
from core.db.models import KnowledgeBase

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "t.db")
    return request.getfixturevalue("postgres_url")


def test_round_trip_and_rollback(db_url):
    db = Database(db_url)
    with db.write() as s:
        s.add(KnowledgeBase(name="kb", owner_id="u1"))
    with pytest.raises(RuntimeError):
        with db.write() as s:
            s.add(KnowledgeBase(name="doomed", owner_id="u1"))
            raise RuntimeError("boom")
    with db.read() as s:
        assert [k.name for k in s.exec(select(KnowledgeBase))] == ["kb"]
    db.dispose()


def test_sqlite_runs_in_wal_mode(tmp_path):
    db = Database(sqlite_url(tmp_path / "w.db"))
    with db.read() as s:
        assert s.exec(text("PRAGMA journal_mode")).one()[0] == "wal"
    db.dispose()


_INCREMENT = """
import sys
from sqlmodel import select
from core.db.database import Database
from core.db.models import KnowledgeBase
db = Database(sys.argv[1])
for _ in range(int(sys.argv[2])):
    with db.write() as s:  # read-then-write: the pattern that locks under a deferred BEGIN
        kb = s.exec(select(KnowledgeBase).where(KnowledgeBase.name == "counter")).one()
        kb.description = str(int(kb.description) + 1)
        s.add(kb)
db.dispose()
"""


def test_two_writer_processes_never_hit_database_is_locked(db_url):
    db = Database(db_url)
    with db.write() as s:
        s.add(KnowledgeBase(name="counter", owner_id="u", description="0"))
    # Real processes started afresh (not multiprocessing: it re-runs the parent's __main__,
    # which other tests in this session may have pointed at the Streamlit app).
    procs = [subprocess.Popen([sys.executable, "-c", _INCREMENT, db_url, "60"], cwd=REPO,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errors = [p.communicate(timeout=180)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    with db.read() as s:
        kb = s.exec(select(KnowledgeBase).where(KnowledgeBase.name == "counter")).one()
    assert kb.description == "120"  # no lost update, no lock error
    db.dispose()


def test_redact_url_hides_the_password():
    assert redact_url("postgresql+psycopg://me:s3cret@db:5432/x") == "postgresql+psycopg://me:***@db:5432/x"
    assert "s3cret" not in redact_url("postgresql://u:s3cret@h/db")
