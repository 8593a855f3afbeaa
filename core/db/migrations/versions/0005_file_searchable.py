"""A file row records that its points are flagged ready (core/ingest/ready.py); empty on older rows.

Revision ID: 0005_file_searchable
Revises: 0004_job_queue
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0005_file_searchable'
down_revision = '0004_job_queue'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('filerecord', schema=None) as batch_op:
        batch_op.add_column(sa.Column('searchable', sa.Boolean(), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('filerecord', schema=None) as batch_op:
        batch_op.drop_column('searchable')

