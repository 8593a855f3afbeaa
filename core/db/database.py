"""Database access: SQLite (WAL) by default, PostgreSQL through DATABASE_URL.

Writes go through ``Database.write()``. On SQLite that transaction starts with
``BEGIN IMMEDIATE``: a read-then-write transaction that starts deferred can fail with
"database is locked" when another process writes in between; taking the write lock up
front makes the second writer wait (busy_timeout) instead.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import event, text
from sqlalchemy.engine import Engine as SAEngine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, create_engine, select

from core.db import models
from core.errors import StoreError

log = logging.getLogger(__name__)

# The last schema number of the releases before Alembic (``schemaversion``); revisions number it now.
SCHEMA_VERSION = 2
_WRITE_OPTION = "ragdesk_write"
_PG_WRITE_LOCK = 0x5241_4744  # "RAGD"


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def redact_url(url: str) -> str:
    """A database URL without its password, for messages and logs."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


class Database:
    def __init__(self, url: str):
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        try:
            self.engine = self._create(url)
            self._migrate()
        except OperationalError as exc:
            raise StoreError(
                f"cannot open the database at {redact_url(url)}: {exc.orig}", detail=str(exc)
            ) from exc

    def _create(self, url: str) -> SAEngine:
        if not self.is_sqlite:
            return create_engine(url, pool_pre_ping=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record) -> None:
            # Let SQLAlchemy's begin event issue BEGIN itself (pysqlite's implicit BEGIN is deferred).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn) -> None:
            immediate = conn.get_execution_options().get(_WRITE_OPTION, False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine

    def _migrate(self) -> None:
        from core.db.migrate import upgrade

        upgrade(self.engine)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A transaction that commits on success and rolls back on any error."""
        bind = self.engine.execution_options(**{_WRITE_OPTION: True}) if self.is_sqlite else self.engine
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
