"""Small originals and parsed texts as rows (core/ingest/blobs.py); larger ones stay files.

Revision ID: 0006_stored_blobs
Revises: 0005_file_searchable
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0006_stored_blobs'
down_revision = '0005_file_searchable'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('storedblob',
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('kind', 'key')
    )


def downgrade() -> None:
    op.drop_table('storedblob')
