"""A database made before accounts could be disabled gets the column, and keeps its users
(SQLite, and PostgreSQL when a server is configured)."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from core.accounts import users
from core.db.database import SCHEMA_VERSION, Database, sqlite_url
from tests.db.test_migrations import _load_fixture


@pytest.fixture(params=["sqlite", "postgres"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "old.db")
    return request.getfixturevalue("postgres_url")


def test_version_1_database_gains_disabled_column(url):
    _load_fixture(url)  # the last release before Alembic (schema version 2), made to look like version 1
    raw = create_engine(url)
    with raw.begin() as conn:
        conn.execute(text('ALTER TABLE "user" DROP COLUMN disabled'))
        conn.execute(text("DROP TABLE usersession"))
        conn.execute(text("UPDATE schemaversion SET version = 1"))
        conn.execute(text("""INSERT INTO "user" (id, name, password_hash, role, language, email, created_at)
                             SELECT 'u-alice', 'alice', password_hash, 'user', 'en', '', created_at
                             FROM "user" WHERE name = 'bob'"""))
    db = Database(url)
    try:
        alice = users.authenticate(db, "alice", "correct horse 2")  # bob's hash, copied
        assert alice.disabled is False
        with raw.connect() as conn:
            assert conn.execute(text("select version from schemaversion")).scalar() == SCHEMA_VERSION == 2
            assert conn.execute(text("select count(*) from usersession")).scalar() == 0  # recreated
    finally:
        db.dispose()
        raw.dispose()
