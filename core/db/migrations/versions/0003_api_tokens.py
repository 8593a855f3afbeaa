"""API tokens (issue 19): personal tokens of the HTTP API, kept as their SHA-256 (core/accounts/api_tokens.py).

Revision ID: 0003_api_tokens
Revises: 0002_curated_answers
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0003_api_tokens'
down_revision = '0002_curated_answers'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('apitoken',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('label', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('prefix', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('last_used_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('revoked_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('apitoken', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_apitoken_token_hash'), ['token_hash'], unique=True)
        batch_op.create_index(batch_op.f('ix_apitoken_user_id'), ['user_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('apitoken', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_apitoken_user_id'))
        batch_op.drop_index(batch_op.f('ix_apitoken_token_hash'))

    op.drop_table('apitoken')
