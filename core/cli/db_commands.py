"""``python -m core db upgrade|current|revision``: the database schema, on its own (the vector store is not
opened, so it works while the dashboard runs)."""

from __future__ import annotations

import argparse

from core.cli.context import emit


def _engine(args: argparse.Namespace):
    from sqlalchemy import create_engine

    from core.config import RuntimeConfig
    from core.storage.data_folder import check_data_folder, sqlite_path

    config = RuntimeConfig.from_env(args.data_dir)
    database = sqlite_path(config.database_url)
    check_data_folder(config.data_dir, database, config.data_dir_link)
    if database is not None and not database.exists():
        from core.errors import NotFound

        raise NotFound(f"no database at {database} (start ragdesk once, or point --data-dir at its data folder)")
    return create_engine(config.database_url)


def cmd_db(args: argparse.Namespace) -> int:
    from core.db import migrate
    from core.db.database import Database

    if args.db_command == "revision":
        path = migrate.write_revision(args.message)
        emit(args, {"path": path}, lambda r: f"wrote {r['path']}; review it before committing")
        return 0
    engine = _engine(args)
    try:
        before, empty = migrate.current(engine), migrate.is_empty(engine)
        unrevised = "an empty database" if empty else "made before Alembic"
        if args.db_command == "current":
            emit(args, {"revision": before, "head": migrate.head()},
                 lambda r: f"{r['revision'] or f'no revision ({unrevised})'} (newest: {r['head']})")
            return 0
    finally:
        engine.dispose()
    from core.config import RuntimeConfig

    config = RuntimeConfig.from_env(args.data_dir)
    db = Database(config.database_url)  # the path every start-up takes
    try:
        after = migrate.current(db.engine)
        encrypted = _encrypt_plain_secrets(db, config)
    finally:
        db.dispose()
    report = {"from": before, "to": after, "head": migrate.head(), "secrets_encrypted": encrypted}
    emit(args, report, lambda r: f"database at {r['to']}"
         + ("" if r["from"] == r["to"] else f" (was {r['from'] or ('empty' if empty else 'before Alembic')})")
         + (f"; encrypted the plain-text secrets of {encrypted} settings version(s)" if encrypted else ""))
    return 0


def _encrypt_plain_secrets(db, config) -> int:
    """What every start does too: secrets an earlier release saved in plain text are encrypted, with
    the data folder's key (or RAGDESK_SECRET_KEY); without either, the next start does it."""
    import os

    from core.secrets.box import ENV_KEY, SecretBox
    from core.settings.store import encrypt_plain_rows

    if not os.environ.get(ENV_KEY) and not config.data_dir.is_dir():  # no folder to keep a key in
        return 0
    return encrypt_plain_rows(db, SecretBox.for_data_dir(config.data_dir))


def register(sub: argparse._SubParsersAction) -> None:
    db = sub.add_parser("db", help="the database schema: upgrade it to this release, or show its revision")
    db.set_defaults(handler=cmd_db)
    ds = db.add_subparsers(dest="db_command", required=True)
    ds.add_parser("upgrade", help="apply every schema revision the database lacks (start-up does the same)")
    ds.add_parser("current", help="the database's schema revision and the newest this ragdesk knows")
    ds.add_parser("revision", help="for developers: write a revision from the models' changes").add_argument("message")
