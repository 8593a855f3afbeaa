"""An assistant's metadata filter, applied to every question asked through it (core/assistants/models.py).

Revision ID: 0011_assistant_filter
Revises: 0010_assistants
"""

import sqlalchemy as sa
from alembic import op

revision = '0011_assistant_filter'
down_revision = '0010_assistants'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.add_column(sa.Column('where', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.drop_column('where')
