"""Opening a database engine: the URL helpers and SQLite's connection settings.

A leaf of ``core/db``: ``Database`` opens its engine here, and the migration tool opens its scratch
database here too, so ``migrate.py`` never needs ``Database`` (which runs the migrations).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine as SAEngine
from sqlmodel import create_engine

WRITE_OPTION = "ragdesk_write"  # a transaction opened with this option takes SQLite's write lock first


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


def create_db_engine(url: str) -> SAEngine:
    """An SQLAlchemy engine for the URL; on SQLite with WAL, a busy timeout and BEGIN IMMEDIATE for
    transactions opened with ``WRITE_OPTION``."""
    if not url.startswith("sqlite"):
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
        immediate = conn.get_execution_options().get(WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine
