"""Schema revisions, oldest first by their down_revision chain (Alembic ignores this file)."""
