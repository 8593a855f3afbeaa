"""Server-side sign-in sessions: a random token given to the browser, only its hash kept here.

A session ends at whichever comes first: its absolute expiry (``SESSION_MAX_AGE`` after sign-in),
``SESSION_IDLE`` without use, sign-out, a password change, or the account being disabled. A
stolen copy of the database holds no usable token (SHA-256 of 256 random bits cannot be
reversed), and revoking is a row update every process sees at once.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta, timezone

from sqlmodel import delete, select

from core.db.database import Database
from core.db.models import User, UserSession

SESSION_MAX_AGE = timedelta(days=14)
SESSION_IDLE = timedelta(days=2)
# last_seen is written at most this often, so a page rerun is not a database write each time
_TOUCH_EVERY = timedelta(minutes=1)
_MAX_CLIENT_HINT = 200


def _now(now: datetime | None) -> datetime:
    return now or datetime.now(timezone.utc)


def _aware(value: datetime) -> datetime:
    # SQLite returns naive datetimes; every time stored here is UTC
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def open_session(db: Database, user_id: str, client: str = "", *, now: datetime | None = None) -> str:
    """A new session for ``user_id``; returns the token (shown once, to the browser)."""
    token = secrets.token_urlsafe(32)
    start = _now(now)
    with db.write() as s:
        # tidy as we go: this user's sessions that can no longer be used are dropped
        ended = (UserSession.revoked_at.is_not(None)) | (UserSession.expires_at <= start) | \
            (UserSession.last_seen_at <= start - SESSION_IDLE)
        s.exec(delete(UserSession).where(UserSession.user_id == user_id, ended))
        s.add(UserSession(token_hash=token_hash(token), user_id=user_id, client=(client or "")[:_MAX_CLIENT_HINT],
                          created_at=start, last_seen_at=start, expires_at=start + SESSION_MAX_AGE))
    return token


def session_user(db: Database, token: str, *, now: datetime | None = None) -> User | None:
    """The user a live session belongs to; None for an unknown, expired, revoked or disabled one."""
    if not token:
        return None
    moment = _now(now)
    key = token_hash(token)
    with db.read() as s:
        row = s.get(UserSession, key)
        if row is None or row.revoked_at is not None:
            return None
        if moment >= _aware(row.expires_at) or moment - _aware(row.last_seen_at) >= SESSION_IDLE:
            return None
        user = s.get(User, row.user_id)
        if user is None or user.disabled:
            return None
        stale = moment - _aware(row.last_seen_at) >= _TOUCH_EVERY
    if stale:
        with db.write() as s:
            row = s.get(UserSession, key)
            if row is not None:
                row.last_seen_at = moment
                s.add(row)
    return user


def close_session(db: Database, token: str, *, now: datetime | None = None) -> None:
    """Sign-out: the token stops working everywhere (unknown tokens are ignored)."""
    if not token:
        return
    with db.write() as s:
        row = s.get(UserSession, token_hash(token))
        if row is not None and row.revoked_at is None:
            row.revoked_at = _now(now)
            s.add(row)


def close_all_for(db: Database, user_id: str, *, now: datetime | None = None) -> int:
    """Revoke every open session of a user (password change, disable, admin action)."""
    moment = _now(now)
    with db.write() as s:
        rows = list(s.exec(select(UserSession).where(UserSession.user_id == user_id, UserSession.revoked_at.is_(None))))
        for row in rows:
            row.revoked_at = moment
            s.add(row)
    return len(rows)

