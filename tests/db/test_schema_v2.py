"""A database made before accounts could be disabled gets the column, and keeps its users."""

from __future__ import annotations

import sqlite3

from core import users
from core.db.database import SCHEMA_VERSION, Database, sqlite_url


def test_version_1_database_gains_disabled_column(tmp_path):
    path = tmp_path / "old.db"
    db = Database(sqlite_url(path))
    users.sign_up(db, "alice", "correct horse 1")
    db.dispose()
    with sqlite3.connect(path) as conn:  # make it look like version 1 wrote it
        conn.execute('ALTER TABLE "user" DROP COLUMN disabled')
        conn.execute("DROP TABLE usersession")
        conn.execute("UPDATE schemaversion SET version = 1")
    db = Database(sqlite_url(path))
    try:
        alice = users.authenticate(db, "alice", "correct horse 1")
        assert alice.disabled is False
        with sqlite3.connect(path) as conn:
            assert conn.execute("select version from schemaversion").fetchone()[0] == SCHEMA_VERSION == 2
            assert "usersession" in {r[0] for r in conn.execute("select name from sqlite_master")}
    finally:
        db.dispose()
