"""The schema of the last release before Alembic: every table, the Drive and sources tables included.

Run on an empty database it creates them all. Run on a database an earlier release made (no
``alembic_version`` yet) it creates the tables that release had not made yet (the Drive and
sources tables were made on first use) and adds the columns a still older release lacked, so
every later revision starts from one known schema. The tables are written out here, not taken
from today's models, so this revision means the same thing whatever the models become.

Revision ID: 0001_baseline
Revises: (none)
"""

import sqlalchemy as sa
import sqlmodel  # noqa: F401 (the column types below are SQLModel's, as the models declared them)
from alembic import op

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None

BASELINE = sa.MetaData()


def _columns(table: str, *names: str) -> list:
    return [BASELINE.tables[table].c[name] for name in names]


sa.Table('chat', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('title', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
)
sa.Index('ix_chat_owner_id', *_columns('chat', 'owner_id'), unique=False)
sa.Table('driveauthrequest', BASELINE,
    sa.Column('state', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('code_verifier', sa.Text(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('state')
)
sa.Index('ix_driveauthrequest_user_id', *_columns('driveauthrequest', 'user_id'), unique=False)
sa.Table('driveconnection', BASELINE,
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('refresh_token', sa.Text(), nullable=True),
    sa.Column('access_token', sa.Text(), nullable=True),
    sa.Column('expiry', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('display_name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('state', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('user_id')
)
sa.Table('filerecord', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('sha256', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('mime', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('chat_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('error_key', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('error_params', sa.JSON(), nullable=True),
    sa.Column('collection', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('chunk_count', sa.Integer(), nullable=False),
    sa.Column('char_count', sa.Integer(), nullable=False),
    sa.Column('full_document', sa.Boolean(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
)
sa.Index('ix_filerecord_chat_id', *_columns('filerecord', 'chat_id'), unique=False)
sa.Index('ix_filerecord_kb_id', *_columns('filerecord', 'kb_id'), unique=False)
sa.Index('ix_filerecord_owner_id', *_columns('filerecord', 'owner_id'), unique=False)
sa.Index('ix_filerecord_sha256', *_columns('filerecord', 'sha256'), unique=False)
sa.Index('ix_filerecord_status', *_columns('filerecord', 'status'), unique=False)
sa.Table('job', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('file_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('state', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('progress_done', sa.Integer(), nullable=False),
    sa.Column('progress_total', sa.Integer(), nullable=False),
    sa.Column('message', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('message_key', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('message_params', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('cancel_requested', sa.Boolean(), nullable=False),
    sa.Column('pid', sa.Integer(), nullable=False),
    sa.Column('host', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
)
sa.Index('ix_job_file_id', *_columns('job', 'file_id'), unique=False)
sa.Index('ix_job_kb_id', *_columns('job', 'kb_id'), unique=False)
sa.Index('ix_job_owner_id', *_columns('job', 'owner_id'), unique=False)
sa.Index('ix_job_state', *_columns('job', 'state'), unique=False)
sa.Table('kbshare', BASELINE,
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('kb_id', 'user_id')
)
sa.Table('knowledgebase', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('description', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('visibility', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('full_document', sa.Boolean(), nullable=False),
    sa.Column('collection', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('collection_version', sa.Integer(), nullable=False),
    sa.Column('embedder_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('dimension', sa.Integer(), nullable=False),
    sa.Column('sparse_encoder', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('chunking', sa.JSON(), nullable=True),
    sa.Column('chunking_override', sa.JSON(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('owner_id', 'name', name='uq_kb_owner_name')
)
sa.Index('ix_knowledgebase_name', *_columns('knowledgebase', 'name'), unique=False)
sa.Index('ix_knowledgebase_owner_id', *_columns('knowledgebase', 'owner_id'), unique=False)
sa.Table('message', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('chat_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('content', sa.Text(), nullable=True),
    sa.Column('mode', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('hit', sa.Boolean(), nullable=True),
    sa.Column('llm_called', sa.Boolean(), nullable=True),
    sa.Column('citations', sa.JSON(), nullable=True),
    sa.Column('timings', sa.JSON(), nullable=True),
    sa.Column('flagged', sa.Boolean(), nullable=False),
    sa.Column('retrieved', sa.JSON(), nullable=True),
    sa.Column('notices', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
)
sa.Index('ix_message_chat_id', *_columns('message', 'chat_id'), unique=False)
sa.Table('messagefeedback', BASELINE,
    sa.Column('message_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('rating', sa.Integer(), nullable=False),
    sa.Column('comment', sa.Text(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('message_id', 'user_id')
)
sa.Table('schemaversion', BASELINE,
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id')
)
sa.Table('settingsversion', BASELINE,
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=True),
    sa.Column('saved_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('version')
)
sa.Table('signinthrottle', BASELINE,
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('failures', sa.Integer(), nullable=False),
    sa.Column('window_start', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('locked_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('key')
)
sa.Table('sourceitemrecord', BASELINE,
    sa.Column('source_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('item_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('file_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('version', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('owns_file', sa.Boolean(), nullable=False),
    sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('source_id', 'item_id')
)
sa.Index('ix_sourceitemrecord_file_id', *_columns('sourceitemrecord', 'file_id'), unique=False)
sa.Table('syncedsource', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('owner_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('title', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('config', sa.JSON(), nullable=True),
    sa.Column('watch', sa.Boolean(), nullable=False),
    sa.Column('cursor', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('state', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('last_sync_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('lease_owner', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('lease_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
)
sa.Index('ix_syncedsource_kb_id', *_columns('syncedsource', 'kb_id'), unique=False)
sa.Index('ix_syncedsource_kind', *_columns('syncedsource', 'kind'), unique=False)
sa.Index('ix_syncedsource_owner_id', *_columns('syncedsource', 'owner_id'), unique=False)
sa.Table('synclog', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kb_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('started_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('trigger', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('full_listing', sa.Boolean(), nullable=False),
    sa.Column('added', sa.Integer(), nullable=False),
    sa.Column('updated', sa.Integer(), nullable=False),
    sa.Column('removed', sa.Integer(), nullable=False),
    sa.Column('failed', sa.Integer(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('results', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('id')
)
sa.Index('ix_synclog_kb_id', *_columns('synclog', 'kb_id'), unique=False)
sa.Index('ix_synclog_source_id', *_columns('synclog', 'source_id'), unique=False)
sa.Table('user', BASELINE,
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('password_hash', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('language', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
)
sa.Index('ix_user_name', *_columns('user', 'name'), unique=True)
sa.Table('usersession', BASELINE,
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('user_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('client', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('last_seen_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('revoked_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('token_hash')
)
sa.Index('ix_usersession_user_id', *_columns('usersession', 'user_id'), unique=False)
sa.Table('websearchcollection', BASELINE,
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('queries', sa.JSON(), nullable=True),
    sa.Column('urls', sa.JSON(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('name')
)
sa.Index('ix_websearchcollection_created_at', *_columns('websearchcollection', 'created_at'), unique=False)
# ### end Alembic commands ###


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    present = set(inspector.get_table_names())
    for table in BASELINE.sorted_tables:
        if table.name not in present:
            table.create(bind)
            continue
        have = {c["name"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have and not column.primary_key:
                # an older release's table: the column arrives empty (nullable), as that release's
                # start-up added it
                op.add_column(table.name, sa.Column(column.name, column.type, nullable=True))
        indexes = {i["name"] for i in inspector.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in indexes:
                index.create(bind)


def downgrade() -> None:
    bind = op.get_bind()
    for table in reversed(BASELINE.sorted_tables):
        table.drop(bind, checkfirst=True)
