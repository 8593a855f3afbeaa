"""The job queue (issue 20): a job row holds its payload, attempts, lease and result; a leader
lease row lets one process at a time enqueue the scheduled syncs. Existing jobs get empty values.

Revision ID: 0004_job_queue
Revises: 0003_api_tokens
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0004_job_queue'
down_revision = '0003_api_tokens'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('leaderlease',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('holder', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('lease_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('renewed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    with op.batch_alter_table('job', schema=None) as batch_op:
        batch_op.add_column(sa.Column('payload', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('blob', sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('result', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('attempts', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('worker_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch_op.add_column(sa.Column('lease_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_index(batch_op.f('ix_job_blob'), ['blob'], unique=False)
        batch_op.create_index(batch_op.f('ix_job_worker_id'), ['worker_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('job', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_job_worker_id'))
        batch_op.drop_index(batch_op.f('ix_job_blob'))
        batch_op.drop_column('finished_at')
        batch_op.drop_column('started_at')
        batch_op.drop_column('lease_until')
        batch_op.drop_column('worker_id')
        batch_op.drop_column('attempts')
        batch_op.drop_column('result')
        batch_op.drop_column('blob')
        batch_op.drop_column('payload')

    op.drop_table('leaderlease')
