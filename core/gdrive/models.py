"""Per-user Drive connections (tokens encrypted with core.secrets.box) and pending consent requests."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from core.db.models import utcnow
from core.secrets.columns import register_encrypted_column


class DriveConnection(SQLModel, table=True):
    user_id: str = Field(primary_key=True)  # one connection per user, used by that user only
    refresh_token: str = Field(default="", sa_column=Column(Text))  # SecretBox-encrypted
    access_token: str = Field(default="", sa_column=Column(Text))  # SecretBox-encrypted
    expiry: datetime | None = None
    email: str = ""
    display_name: str = ""
    state: str = "connected"  # connected | reconnect (refresh refused: revoked or expired)
    last_error: str = Field(default="", sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class DriveAuthRequest(SQLModel, table=True):
    """A consent screen sent to a user: the ``state`` that must come back, and the PKCE verifier."""

    state: str = Field(primary_key=True)
    user_id: str = Field(index=True)
    code_verifier: str = Field(default="", sa_column=Column(Text))  # SecretBox-encrypted
    created_at: datetime = Field(default_factory=utcnow)


# ``python -m core secrets rotate`` re-encrypts these columns with the new key.
for _column in ("refresh_token", "access_token"):
    register_encrypted_column(DriveConnection, _column)
register_encrypted_column(DriveAuthRequest, "code_verifier")
