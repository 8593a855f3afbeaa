"""Alembic's entry point, run on the connection ``core.db.migrate`` hands over (no alembic.ini:
the database URL is the engine's own, from RAGDESK/DATABASE_URL settings)."""

from alembic import context

from core.db.migrate import target_metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=target_metadata(),
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters a table by copying it
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
