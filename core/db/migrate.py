"""One schema path: Alembic revisions in ``core/db/migrations/versions/``, run at start-up and by
``python -m core db upgrade``.

Every table is made by a revision (the Drive and sources tables included); no ``create_all``.
A schema change is a new revision file next to the others (``python -m core db revision MESSAGE``
writes one from the models' difference); ``tests/db/test_migrations.py`` fails while the models
and the revisions disagree.

Upgrading takes the database's write lock first (SQLite ``BEGIN IMMEDIATE``, PostgreSQL an
advisory lock), so two processes starting at once run each step once: the second waits, then
finds the database at head. Plugins' tables (core/db/plugin_tables.py) are brought up to date
right after core's, under the same lock, each on its own revision chain and version table.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SAEngine

from core.db.connect import WRITE_OPTION, create_db_engine, sqlite_url
from core.db.plugin_tables import upgrade_plugin_tables
from core.errors import StoreError

log = logging.getLogger(__name__)

SCRIPTS = Path(__file__).resolve().parent / "migrations"
BASELINE = "0001_baseline"
_PG_MIGRATION_LOCK = 0x5241_474D  # "RAGM"


def target_metadata():
    """The models' metadata, every table module imported (what revisions are compared against)."""
    from sqlmodel import SQLModel

    import core.assistants.models  # noqa: F401
    import core.chunk_edits.models  # noqa: F401
    import core.db.models  # noqa: F401
    import core.gdrive.models  # noqa: F401
    import core.metadata.models  # noqa: F401
    import core.sources.models  # noqa: F401

    return SQLModel.metadata


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    return ScriptDirectory.from_config(_config()).get_current_head()


def is_empty(engine: SAEngine) -> bool:
    """No table at all: a new database (not one from a release before Alembic)."""
    with engine.connect() as conn:
        return not inspect(conn).get_table_names()


def current(engine: SAEngine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@contextmanager
def _locked(engine: SAEngine) -> Iterator[Connection]:
    """One connection in one transaction, holding the database's write lock until it commits."""
    if engine.dialect.name == "sqlite":
        with engine.execution_options(**{WRITE_OPTION: True}).begin() as conn:
            yield conn
        return
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
        yield conn


def _before_alembic(conn: Connection) -> None:
    """A database from a release before Alembic: the one column that release's start-up added with
    a default (accounts that can be disabled, schema version 2); the baseline adds the rest."""
    tables = set(inspect(conn).get_table_names())
    if "user" not in tables:
        return
    if "disabled" not in {c["name"] for c in inspect(conn).get_columns("user")}:
        conn.execute(text('ALTER TABLE "user" ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE'))
    if "schemaversion" in tables:
        conn.execute(text("UPDATE schemaversion SET version = 2 WHERE id = 1 AND version < 2"))


def upgrade(engine: SAEngine) -> list[str]:
    """Bring the database to the newest revision; the revisions applied, oldest first."""
    scripts = ScriptDirectory.from_config(_config())
    known = {rev.revision for rev in scripts.walk_revisions()}
    with _locked(engine) as conn:
        before = MigrationContext.configure(conn).get_current_revision()
        if before is not None and before not in known:
            raise StoreError(f"the database schema is at revision {before}, newer than this ragdesk "
                             f"(newest known: {scripts.get_current_head()}); upgrade ragdesk")
        if before is None:
            _before_alembic(conn)
        command.upgrade(_config(conn), "head")
        after = MigrationContext.configure(conn).get_current_revision()
        upgrade_plugin_tables(conn)
    applied = _between(scripts, before, after)
    if applied:
        log.info("database upgraded: %s", ", ".join(applied))
    return applied


def _between(scripts: ScriptDirectory, before: str | None, after: str | None) -> list[str]:
    if before == after or after is None:
        return []
    revs = [r.revision for r in scripts.iterate_revisions(after, before or "base")]
    return list(reversed(revs))


def _skip_if_empty(_context, _revision, directives) -> None:
    if directives and directives[0].upgrade_ops.is_empty():
        directives[:] = []


def write_revision(message: str) -> str:
    """For developers: a new revision file from the models' difference to the schema at head
    (compared on a scratch SQLite database); the file's path, or "" when nothing changed."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        engine = create_db_engine(sqlite_url(Path(scratch) / "head.db"))
        try:
            upgrade(engine)
            with engine.begin() as conn:
                script = command.revision(_config(conn), message=message, autogenerate=True,
                                          process_revision_directives=_skip_if_empty)
        finally:
            engine.dispose()
    scripts = script if isinstance(script, list) else [script] if script is not None else []
    return str(scripts[0].path) if scripts else ""
