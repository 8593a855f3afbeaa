"""Alembic's entry point, run on the connection ``core.db.migrate`` hands over (no alembic.ini:
the database URL is the engine's own, from RAGDESK/DATABASE_URL settings). A plugin's table set
(core/db/plugin_tables.py) runs through here too, with its own metadata and version table; each
chain sees only its own tables."""

from alembic import context

from core.db.migrate import target_metadata
from core.db.plugin_tables import include_table

attributes = context.config.attributes
connection = attributes["connection"]
own = attributes.get("target_metadata")  # a plugin's metadata, or None for core's chain


def _include_name(name, type_, _parents) -> bool:
    return type_ != "table" or include_table(name, own)


context.configure(
    connection=connection,
    target_metadata=target_metadata() if own is None else own,
    version_table=attributes.get("version_table") or "alembic_version",
    include_name=_include_name,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters a table by copying it
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
