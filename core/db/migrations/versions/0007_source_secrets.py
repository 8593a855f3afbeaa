"""A source's credentials (a WebDAV password), encrypted, apart from its config.

Revision ID: 0007_source_secrets
Revises: 0006_stored_blobs
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0007_source_secrets'
down_revision = '0006_stored_blobs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('sourcesecret',
    sa.Column('source_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('value', sa.Text(), nullable=True),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('source_id', 'name')
    )


def downgrade() -> None:
    op.drop_table('sourcesecret')
