"""Metadata fields per knowledge base and their values per file (core/metadata/).

Revision ID: 0009_metadata_fields
Revises: 0008_chunk_edits
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision = '0009_metadata_fields'
down_revision = '0008_chunk_edits'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('filemetadatavalue',
    sa.Column('file_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('field_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('value', sa.JSON(), nullable=True),
    sa.Column('updated_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('file_id', 'field_id')
    )
    with op.batch_alter_table('filemetadatavalue', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_filemetadatavalue_field_id'), ['field_id'], unique=False)

    op.create_table('metadatafield',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('kb_id', 'name', name='uq_metadata_field_kb_name')
    )
    with op.batch_alter_table('metadatafield', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_metadatafield_kb_id'), ['kb_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('metadatafield', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_metadatafield_kb_id'))

    op.drop_table('metadatafield')
    with op.batch_alter_table('filemetadatavalue', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_filemetadatavalue_field_id'))

    op.drop_table('filemetadatavalue')
