"""Chunks edited by hand and their history (core/chunk_edits/models.py).

Revision ID: 0008_chunk_edits
Revises: 0007_source_secrets
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0008_chunk_edits'
down_revision = '0007_source_secrets'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('chunkedit',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('file_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('chunk_index', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('base_text', sa.Text(), nullable=True),
    sa.Column('text', sa.Text(), nullable=True),
    sa.Column('keywords', sa.JSON(), nullable=True),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=True),
    sa.Column('updated_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('file_id', 'chunk_index', name='uq_chunkedit_file_chunk')
    )
    with op.batch_alter_table('chunkedit', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_chunkedit_file_id'), ['file_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_chunkedit_kb_id'), ['kb_id'], unique=False)

    op.create_table('chunkeditlog',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('file_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('chunk_index', sa.Integer(), nullable=False),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('actor_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('actor_name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('before', sa.JSON(), nullable=True),
    sa.Column('after', sa.JSON(), nullable=True),
    sa.Column('note', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('chunkeditlog', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_chunkeditlog_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_chunkeditlog_file_id'), ['file_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_chunkeditlog_kb_id'), ['kb_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('chunkeditlog', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chunkeditlog_kb_id'))
        batch_op.drop_index(batch_op.f('ix_chunkeditlog_file_id'))
        batch_op.drop_index(batch_op.f('ix_chunkeditlog_at'))

    op.drop_table('chunkeditlog')
    with op.batch_alter_table('chunkedit', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chunkedit_kb_id'))
        batch_op.drop_index(batch_op.f('ix_chunkedit_file_id'))

    op.drop_table('chunkedit')
