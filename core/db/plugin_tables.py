"""A plugin's own tables: its SQLAlchemy metadata and the Alembic revisions it owns.

A plugin registers one ``TableSet``; the migration step (core/db/migrate.py, run at every start and
by ``python -m core db upgrade``) brings each set to its newest revision right after core's own,
inside the same write lock. Each set keeps its revisions in its own folder and its position in its
own version table (``alembic_version_<name>``): core's revision chain never names a plugin's, so a
plugin can be added, upgraded or removed without touching core's history (a removed plugin's tables
and version table simply stay). Revisions are plain Alembic files, run by core's ``env.py`` with
the set's metadata (so ``op.create_table`` etc. work as in core's own revisions).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData
from sqlalchemy.engine import Connection

from core.errors import StoreError
from core.plugins import TABLE_SETS

log = logging.getLogger(__name__)

# core's env.py runs every set's revisions (no alembic.ini, no env.py per plugin)
_ENV = Path(__file__).resolve().parent / "migrations"


@dataclass(frozen=True)
class TableSet:
    """``name``: a word (its version table is ``alembic_version_<name>``); ``metadata``: the tables
    (not SQLModel's shared metadata: core's schema check compares that with core's revisions);
    ``versions``: the folder of its Alembic revision files."""

    name: str
    metadata: MetaData
    versions: Path

    @property
    def version_table(self) -> str:
        return f"alembic_version_{self.name}"


def register_tables(tables: TableSet) -> TableSet:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", tables.name):
        raise ValueError(f"a table set's name is a lower-case word (got {tables.name!r})")
    if not Path(tables.versions).is_dir():
        raise ValueError(f"table set {tables.name!r}: {tables.versions} is not a folder of revisions")
    return TABLE_SETS.register(tables.name, tables)


def config(tables: TableSet, connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(_ENV))
    cfg.set_main_option("path_separator", "os")  # a folder path may hold spaces
    cfg.set_main_option("version_locations", str(tables.versions))
    cfg.attributes.update(connection=connection, target_metadata=tables.metadata, version_table=tables.version_table)
    return cfg


def upgrade_plugin_tables(conn: Connection) -> dict[str, list[str]]:
    """Every registered set at its newest revision, on ``conn`` (core's migration lock held);
    the revisions applied, by set."""
    applied: dict[str, list[str]] = {}
    for name, tables in TABLE_SETS.items():
        scripts = ScriptDirectory.from_config(config(tables))
        before = MigrationContext.configure(conn, opts={"version_table": tables.version_table}).get_current_revision()
        if before is not None and before not in {rev.revision for rev in scripts.walk_revisions()}:
            raise StoreError(f"the tables of plugin {name!r} are at revision {before}, newer than the plugin "
                             "installed; upgrade the plugin")
        command.upgrade(config(tables, conn), "head")
        after = MigrationContext.configure(conn, opts={"version_table": tables.version_table}).get_current_revision()
        if after != before:
            revs = [r.revision for r in scripts.iterate_revisions(after, before or "base")]
            applied[name] = list(reversed(revs))
            log.info("plugin %s tables upgraded: %s", name, ", ".join(applied[name]))
    return applied


def include_table(name: str, own: MetaData | None) -> bool:
    """Whether a revision run (or an autogenerate) on ``own``'s chain may touch table ``name``:
    a plugin's chain only its own tables; core's chain (``own`` None) none of the plugins' tables
    and none of their version tables — so ``db revision`` never writes a drop of a plugin's table."""
    if own is not None:
        return name in own.tables
    plugin_tables = {t for _, tables in TABLE_SETS.items() for t in tables.metadata.tables}
    return name not in plugin_tables and not name.startswith("alembic_version_")
