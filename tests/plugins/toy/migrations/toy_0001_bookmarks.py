"""The toy shelves' bookmark table (the toy plugin's own revision chain, version table
``alembic_version_toy``).

Revision ID: toy_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "toy_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "toy_shelf_bookmark",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("shelf", sa.String(length=100), nullable=False),
        sa.Column("note", sa.String(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_toy_shelf_bookmark_shelf", "toy_shelf_bookmark", ["shelf"])


def downgrade() -> None:
    op.drop_index("ix_toy_shelf_bookmark_shelf", table_name="toy_shelf_bookmark")
    op.drop_table("toy_shelf_bookmark")
