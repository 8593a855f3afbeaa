"""Personal API tokens: how a program (the HTTP API's callers) says who it acts for.

A token is ``rd_`` + 32 random bytes, URL-safe (43 characters): shown once, when it is made; the
database keeps its SHA-256 (a fast hash is enough for 256 random bits: there is no dictionary to
try, unlike a password) and its first characters (``prefix``) so its owner can tell tokens apart.
A check hashes what it is given, looks the hash up and compares it in constant time.

Checks are counted per client like sign-ins (``signin_guard``: the same counters and locks,
under ``api:<client>``): each attempt is reserved before the lookup, in one write transaction, so
of a burst sent at once at most the limit are checked; a real token gives its attempt back, a
failure keeps it and costs the caller a delay, and a locked client is refused before anything is
looked up — even with a right token. ``last_used_at`` is written at most once a minute. Tokens outlive a password change (programs keep
working); disabling the account stops every one of its tokens at once, revoking stops one.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlmodel import func, select

from core.accounts import signin_guard as guard
from core.accounts.access import require_admin
from core.accounts.users import actor_of, user_named
from core.db.database import Database
from core.db.models import ApiToken, User
from core.errors import InvalidInput, NotAuthenticated, NotFound
from core.names import clean_name
from core.types import Actor

PREFIX = "rd_"
_RANDOM_BYTES = 32
_TOKEN_CHARS = len(PREFIX) + math.ceil(_RANDOM_BYTES * 4 / 3)  # token_urlsafe: no padding
_SHOWN_CHARS = len(PREFIX) + 6  # the prefix kept in clear: 36 bits, enough to tell tokens apart
MAX_LABEL = 100
MAX_EXPIRES_DAYS = 3650
MAX_TOKENS_PER_USER = 50
_TOUCH_EVERY = timedelta(minutes=1)
# More room than sign-in's per-client limit: one misconfigured program retries quickly.
API_POLICY = guard.SignInPolicy(max_failures_per_client=20, lock_minutes=15.0, failure_delay_seconds=0.5)

NOT_VALID = "the API token is not valid (unknown, revoked or mistyped)"
EXPIRED = "the API token has expired: make a new one"
MISSING = "an API token is required (Authorization: Bearer rd_...)"
DISABLED = "the account of this API token is disabled; ask an admin"


@dataclass(frozen=True)
class CreatedToken:
    """A token just made: ``token`` is the secret, here and nowhere else, ever again."""

    id: str
    token: str
    label: str
    prefix: str
    user_name: str
    created_at: datetime
    expires_at: datetime | None


@dataclass(frozen=True)
class TokenView:
    """A token as listed: never the secret, nor its hash."""

    id: str
    label: str
    prefix: str
    user_id: str
    user_name: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None

    def expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and (now or datetime.now(timezone.utc)) >= self.expires_at


class ApiTokenLocked(NotAuthenticated):
    """Too many failed token checks from one client: carries when to try again."""

    http_status = 429

    def __init__(self, until: datetime, now: datetime):
        self.until = until
        self.retry_after_seconds = max(1, math.ceil((until - now).total_seconds()))
        minutes = max(1, math.ceil(self.retry_after_seconds / 60))
        super().__init__(f"too many failed API token checks: try again after {until:%H:%M} UTC (in {minutes} min)")


def _aware(value: datetime | None) -> datetime | None:
    # SQLite returns naive datetimes; every time stored here is UTC
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def looks_like_token(token: str) -> bool:
    """The shape of a token (``rd_`` + 43 URL-safe characters), checked before any lookup."""
    body = token[len(PREFIX):]
    return (len(token) == _TOKEN_CHARS and token.startswith(PREFIX)
            and all(c.isascii() and (c.isalnum() or c in "-_") for c in body))


def _clean_label(label: str) -> str:
    if not (label or "").strip():
        return ""
    return clean_name(label, "token label", MAX_LABEL)


def _expiry(expires_days: int | None, start: datetime) -> datetime | None:
    if expires_days is None:
        return None
    if isinstance(expires_days, bool) or not isinstance(expires_days, int) or not 1 <= expires_days <= MAX_EXPIRES_DAYS:
        raise InvalidInput(f"a token expires after 1 to {MAX_EXPIRES_DAYS} days (or never)")
    return start + timedelta(days=expires_days)


def _real_user(db: Database, actor: Actor) -> User:
    with db.read() as s:
        user = s.get(User, actor.user_id)
    if user is None:  # the CLI's local admin is nobody: it names the user (create_for)
        raise InvalidInput("tokens belong to an account: name the user")
    return user


def create(db: Database, actor: Actor, label: str = "", expires_days: int | None = None, *,
           now: datetime | None = None) -> CreatedToken:
    """A new token for the actor themselves."""
    return _create_for(db, _real_user(db, actor), label, expires_days, now=now)


def create_for(db: Database, actor: Actor, user_name: str, label: str = "", expires_days: int | None = None, *,
               now: datetime | None = None) -> CreatedToken:
    """Admins: a new token for someone (e.g. a CI job's account)."""
    require_admin(actor, "create API tokens for other users")
    return _create_for(db, user_named(db, user_name), label, expires_days, now=now)


def _create_for(db: Database, user: User, label: str, expires_days: int | None, *, now: datetime | None) -> CreatedToken:
    if user.disabled:
        raise InvalidInput(f"the account '{user.name}' is disabled: enable it first")
    label = _clean_label(label)
    start = now or datetime.now(timezone.utc)
    expires = _expiry(expires_days, start)
    token = PREFIX + secrets.token_urlsafe(_RANDOM_BYTES)
    with db.write() as s:
        live = s.exec(select(func.count()).select_from(ApiToken).where(
            ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))).one()
        if live >= MAX_TOKENS_PER_USER:
            raise InvalidInput(f"'{user.name}' has {MAX_TOKENS_PER_USER} tokens already: revoke some first")
        row = ApiToken(token_hash=token_hash(token), user_id=user.id, label=label, prefix=token[:_SHOWN_CHARS],
                       created_at=start, expires_at=expires)
        s.add(row)
    return CreatedToken(id=row.id, token=token, label=label, prefix=row.prefix, user_name=user.name,
                        created_at=start, expires_at=expires)


def list_tokens(db: Database, actor: Actor, user_name: str | None = None, *, everyone: bool = False) -> list[TokenView]:
    """The live (not revoked) tokens of the actor, of ``user_name`` (oneself, or anyone for an
    admin) or, with ``everyone`` (admins), of every account. Newest first."""
    owner_ids: list[str] | None
    if everyone:
        require_admin(actor, "list every user's API tokens")
        owner_ids = None
    elif user_name is not None:
        user = user_named(db, user_name)
        if user.id != actor.user_id:
            require_admin(actor, "list other users' API tokens")
        owner_ids = [user.id]
    else:
        owner_ids = [actor.user_id]
    with db.read() as s:
        query = select(ApiToken, User).where(ApiToken.user_id == User.id, ApiToken.revoked_at.is_(None))
        if owner_ids is not None:
            query = query.where(ApiToken.user_id.in_(owner_ids))
        rows = list(s.exec(query.order_by(ApiToken.created_at.desc())))
    return [TokenView(id=t.id, label=t.label, prefix=t.prefix, user_id=u.id, user_name=u.name,
                      created_at=_aware(t.created_at), expires_at=_aware(t.expires_at),
                      last_used_at=_aware(t.last_used_at)) for t, u in rows]


def revoke(db: Database, actor: Actor, token_id: str, *, now: datetime | None = None) -> None:
    """The token stops working in every process at once. Someone else's token is "not found" to a
    plain user (as if it did not exist: ids are not confirmed to strangers)."""
    with db.write() as s:
        row = s.get(ApiToken, (token_id or "").strip())
        if row is None or row.revoked_at is not None or (row.user_id != actor.user_id and not actor.is_admin):
            raise NotFound(f"no API token with id '{token_id}'")
        row.revoked_at = now or datetime.now(timezone.utc)
        s.add(row)


def actor_for_token(db: Database, token: str, *, client: str = "", policy: guard.SignInPolicy = API_POLICY,
                    now: datetime | None = None) -> Actor:
    """Who ``token`` acts for, or NotAuthenticated. The secret never appears in a message."""
    moment = now or datetime.now(timezone.utc)
    token = (token or "").strip()
    if not token:
        raise NotAuthenticated(MISSING)  # no guess made: not counted
    keys = [(f"api:{(client or 'unknown')[:200]}", 1)]
    until = guard.locked_until(db, keys, now=moment)  # a read: a locked client costs no write
    if until is not None:
        raise ApiTokenLocked(until, moment)
    try:  # counted before the check, as a sign-in is: a burst gets at most the limit of answers
        guard.reserve_attempt(db, keys, policy, now=moment)
    except guard.SignInLocked as locked:
        raise ApiTokenLocked(locked.until, moment) from None
    row, user = _lookup(db, token) if looks_like_token(token) else (None, None)
    if row is None or user is None or row.revoked_at is not None:
        guard.wrong_password(policy)
        raise NotAuthenticated(NOT_VALID)
    if row.expires_at is not None and moment >= _aware(row.expires_at):
        guard.wrong_password(policy)
        raise NotAuthenticated(EXPIRED)
    guard.settle_right_password(db, keys, policy, forgive_name=False)  # a real token gives its attempt back
    if user.disabled:  # said only to someone holding a real token
        raise NotAuthenticated(DISABLED)
    if row.last_used_at is None or moment - _aware(row.last_used_at) >= _TOUCH_EVERY:
        _touch(db, row.id, moment)
    return actor_of(user)


def _lookup(db: Database, token: str) -> tuple[ApiToken | None, User | None]:
    digest = token_hash(token)
    with db.read() as s:
        row = s.exec(select(ApiToken).where(ApiToken.token_hash == digest)).first()
        # the index found it; compare_digest makes the final comparison take the same time whatever it holds
        if row is None or not hmac.compare_digest(row.token_hash, digest):
            return None, None
        return row, s.get(User, row.user_id)


def _touch(db: Database, token_id: str, moment: datetime) -> None:
    with db.write() as s:
        row = s.get(ApiToken, token_id)
        if row is not None:
            row.last_used_at = moment
            s.add(row)
