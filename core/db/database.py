"""Database access: SQLite (WAL) by default, PostgreSQL through DATABASE_URL.

Writes go through ``Database.write()``. On SQLite that transaction starts with
``BEGIN IMMEDIATE``: a read-then-write transaction that starts deferred can fail with
"database is locked" when another process writes in between; taking the write lock up
front makes the second writer wait (busy_timeout) instead.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator

from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from core.db import models
from core.db.connect import WRITE_OPTION, create_db_engine, redact_url, sqlite_url  # noqa: F401 (sqlite_url: read from here too)
from core.db.migrate import upgrade
from core.errors import StoreError

log = logging.getLogger(__name__)

# The last schema number of the releases before Alembic (``schemaversion``); revisions number it now.
SCHEMA_VERSION = 2
_PG_WRITE_LOCK = 0x5241_4744  # "RAGD"


class Database:
    def __init__(self, url: str):
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        try:
            self.engine = create_db_engine(url)
            self._migrate()
        except OperationalError as exc:
            raise StoreError(
                f"cannot open the database at {redact_url(url)}: {exc.orig}", detail=str(exc)
            ) from exc

    def _migrate(self) -> None:
        upgrade(self.engine)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A transaction that commits on success and rolls back on any error."""
        bind = self.engine.execution_options(**{WRITE_OPTION: True}) if self.is_sqlite else self.engine
        with Session(bind, expire_on_commit=False) as session:
            try:
                if not self.is_sqlite:
                    # The same guarantee as SQLite's BEGIN IMMEDIATE: one writer at a time, so a
                    # read-then-write transaction never loses an update.
                    session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_WRITE_LOCK})
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    def dispose(self) -> None:
        self.engine.dispose()


def latest_settings_version(session: Session) -> models.SettingsVersion | None:
    return session.exec(
        select(models.SettingsVersion).order_by(models.SettingsVersion.version.desc()).limit(1)
    ).first()
