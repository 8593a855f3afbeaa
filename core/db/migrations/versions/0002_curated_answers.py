"""Curated answers (issue 21): approved question/answer pairs per knowledge base.

Revision ID: 0002_curated_answers
Revises: 0001_baseline
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0002_curated_answers'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('curatedanswer',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('question', sa.Text(), nullable=True),
    sa.Column('answer', sa.Text(), nullable=True),
    sa.Column('approved_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('approved_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('created_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('embedder_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('vector', sa.JSON(), nullable=True),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('curatedanswer', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_curatedanswer_kb_id'), ['kb_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('curatedanswer', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_curatedanswer_kb_id'))

    op.drop_table('curatedanswer')
