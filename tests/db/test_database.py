"""The metadata database: WAL + BEGIN IMMEDIATE on SQLite, and the same code on PostgreSQL."""

from __future__ import annotations

import multiprocessing as mp

import pytest
from sqlalchemy import text
from sqlmodel import select

from core.db.database import Database, redact_url, sqlite_url
from core.db.models import KnowledgeBase



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


def _increment_many(url: str, n: int, owner: str) -> None:
    db = Database(url)
    for _ in range(n):
        with db.write() as s:  # read-then-write: the pattern that locks under deferred BEGIN
            kb = s.exec(select(KnowledgeBase).where(KnowledgeBase.name == "counter")).one()
            kb.description = str(int(kb.description) + 1)
            s.add(kb)
    db.dispose()


def test_two_writer_processes_never_hit_database_is_locked(db_url):
    db = Database(db_url)
    with db.write() as s:
        s.add(KnowledgeBase(name="counter", owner_id="u", description="0"))
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_increment_many, args=(db_url, 60, f"p{i}")) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with db.read() as s:
        kb = s.exec(select(KnowledgeBase).where(KnowledgeBase.name == "counter")).one()
    assert kb.description == "120"  # no lost update, no lock error
    db.dispose()


def test_redact_url_hides_the_password():
    assert redact_url("postgresql+psycopg://me:s3cret@db:5432/x") == "postgresql+psycopg://me:***@db:5432/x"
    assert "s3cret" not in redact_url("postgresql://u:s3cret@h/db")
