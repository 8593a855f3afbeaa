"""Assistants: named presets of knowledge bases, mode and tuning, and their shares (core/assistants/models.py).

Revision ID: 0010_assistants
Revises: 0009_metadata_fields
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0010_assistants'
down_revision = '0009_metadata_fields'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('assistant',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('visibility', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_ids', sa.JSON(), nullable=True),
    sa.Column('mode', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('strict_min_similarity', sa.Float(), nullable=True),
    sa.Column('normal_min_similarity', sa.Float(), nullable=True),
    sa.Column('top_k', sa.Integer(), nullable=True),
    sa.Column('prompt', sa.Text(), nullable=True),
    sa.Column('refusal_text', sa.Text(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('owner_id', 'name', name='uq_assistant_owner_name')
    )
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_assistant_name'), ['name'], unique=False)
        batch_op.create_index(batch_op.f('ix_assistant_owner_id'), ['owner_id'], unique=False)

    op.create_table('assistantshare',
    sa.Column('assistant_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('assistant_id', 'user_id')
    )


def downgrade() -> None:
    op.drop_table('assistantshare')
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_assistant_owner_id'))
        batch_op.drop_index(batch_op.f('ix_assistant_name'))

    op.drop_table('assistant')
