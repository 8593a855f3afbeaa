"""A database made before accounts could be disabled gets the column, and keeps its users
(SQLite, and PostgreSQL when a server is configured)."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from core.accounts import users
from core.db.database import SCHEMA_VERSION, Database, sqlite_url


@pytest.fixture(params=["sqlite", "postgres"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "old.db")
    return request.getfixturevalue("postgres_url")


def test_version_1_database_gains_disabled_column(url):
    db = Database(url)
    users.sign_up(db, "alice", "correct horse 1")
    db.dispose()
    raw = create_engine(url)
    with raw.begin() as conn:  # make it look like version 1 wrote it
        conn.execute(text('ALTER TABLE "user" DROP COLUMN disabled'))
        conn.execute(text("DROP TABLE usersession"))
        conn.execute(text("DELETE FROM schemaversion"))
        conn.execute(text("INSERT INTO schemaversion (id, version) VALUES (1, 1)"))
        conn.execute(text("DROP TABLE alembic_version"))  # version 1 predates Alembic
    db = Database(url)
    try:
        alice = users.authenticate(db, "alice", "correct horse 1")
        assert alice.disabled is False
        with raw.connect() as conn:
            assert conn.execute(text("select version from schemaversion")).scalar() == SCHEMA_VERSION == 2
            assert conn.execute(text("select count(*) from usersession")).scalar() == 0  # recreated
    finally:
        db.dispose()
        raw.dispose()
