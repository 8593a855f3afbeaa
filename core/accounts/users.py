"""Local accounts: bcrypt-hashed passwords, roles admin/user; the first account becomes admin.

Outside this module users are ``UserView``s: the row without its password hash. User names
follow the one name policy of ``core/names.py`` (the same as knowledge bases and files): NFC,
no control or invisible characters, no mix of Latin with Cyrillic or Greek letters; and they are
compared by its ``user_name_key`` (case, width and look-alike letters folded), so "Alice",
"ａｌｉｃｅ" and an all-Cyrillic "аlісе" are one account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

import bcrypt
from sqlmodel import Session, func, select

from core.accounts import sessions
from core.accounts import signin_guard as guard
from core.accounts.access import require_admin
from core.db.database import Database
from core.db.models import User
from core.errors import AlreadyExists, InvalidInput, NotFound, PermissionDenied
from core.names import clean_user_name, user_name_key
from core.types import Actor

MIN_PASSWORD = 8
WRONG_CREDENTIALS = "wrong user name or password"
DISABLED = "this account is disabled; ask an admin"
# Checked when the name is unknown, so an unknown name costs as much time as a wrong password.
# A fixed hash of "no such user" with gensalt()'s default cost (12), not made at import: making it
# took ~0.3 s, which every CLI command paid at start.
_DUMMY_HASH = "$2b$12$qFUGfHHkFsCh1LdYYzOzOO2FdBwUr4Lx9dFLo0AsNsaA6iZhFaLXO"


@dataclass(frozen=True)
class UserView:
    """What pages, the CLI and tests see of an account (never the password hash)."""

    id: str
    name: str
    role: str
    language: str = "en"
    email: str = ""
    disabled: bool = False
    created_at: datetime | None = None
    has_password: bool = True

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def view_of(user: User) -> UserView:
    return UserView(id=user.id, name=user.name, role=user.role, language=user.language, email=user.email,
                    disabled=user.disabled, created_at=user.created_at, has_password=bool(user.password_hash))


def actor_of(user: User | UserView) -> Actor:
    return Actor(user_id=user.id, role=user.role, name=user.name)  # type: ignore[arg-type]


def _check_password(password: str) -> None:
    if len(password or "") < MIN_PASSWORD:
        raise InvalidInput(f"passwords need at least {MIN_PASSWORD} characters")


def _hash(password: str) -> str:
    # bcrypt only reads 72 bytes; longer passphrases are still accepted and truncated consistently
    return bcrypt.hashpw(password.encode()[:72], bcrypt.gensalt()).decode()


def _password_matches(password: str, hashed: str) -> bool:
    return bcrypt.checkpw((password or "").encode()[:72], (hashed or _DUMMY_HASH).encode())


def _find(session: Session, name: str) -> User | None:
    key = user_name_key((name or "").strip())
    exact = session.exec(select(User).where(User.name == (name or "").strip())).first()
    if exact is not None:
        return exact
    return next((u for u in session.exec(select(User)) if user_name_key(u.name) == key), None)


def _named(session: Session, user_name: str) -> User:
    user = _find(session, user_name)
    if user is None:
        raise NotFound(f"user '{user_name}' not found")
    return user


def user_named(db: Database, user_name: str) -> User:
    """The account row for a name (folded like sign-in), or NotFound; for core modules only."""
    with db.read() as s:
        return _named(s, user_name)


def user_count(db: Database) -> int:
    with db.read() as s:
        return int(s.exec(select(func.count()).select_from(User)).one())


def sign_up(db: Database, name: str, password: str, *, email: str = "", language: str = "en") -> UserView:
    """Create a local account. The first account of an installation becomes its admin."""
    name = clean_user_name(name)
    _check_password(password)
    with db.write() as s:
        if _find(s, name) is not None:
            raise AlreadyExists(f"the user name '{name}' is taken")
        first = s.exec(select(func.count()).select_from(User)).one() == 0
        user = User(name=name, password_hash=_hash(password), role="admin" if first else "user",
                    email=email, language=language if language in ("en", "zh") else "en")
        s.add(user)
    return view_of(user)


def create_user(db: Database, actor: Actor, name: str, password: str, *, role: str | None = None) -> UserView:
    """Admins (the CLI's local admin included): make an account without the sign-up page. With no
    ``role`` the first account becomes admin and later ones users, as on sign-up; the first
    account cannot be a plain user (there would be no admin)."""
    require_admin(actor, "create accounts")
    if role not in (None, "admin", "user"):
        raise InvalidInput("role must be admin or user")
    name = clean_user_name(name)
    _check_password(password)
    with db.write() as s:
        if _find(s, name) is not None:
            raise AlreadyExists(f"the user name '{name}' is taken")
        first = s.exec(select(func.count()).select_from(User)).one() == 0
        if first and role == "user":
            raise InvalidInput("the first account is the admin: create it with --role admin (or no role)")
        user = User(name=name, password_hash=_hash(password), role=role or ("admin" if first else "user"))
        s.add(user)
    return view_of(user)


def authenticate(db: Database, name: str, password: str, *, client: str = "",
                 policy: guard.SignInPolicy = guard.DEFAULT_POLICY, now: datetime | None = None) -> UserView:
    """The account for this name and password, or PermissionDenied with one message for an unknown
    name and a wrong password (locked: when to retry instead). The attempt is counted before the
    password is checked (``signin_guard.reserve_attempt``)."""
    moment = now or datetime.now(timezone.utc)
    keys = guard.throttle_keys(user_name_key((name or "").strip()), client)
    guard.reserve_attempt(db, keys, policy, now=moment)
    with db.read() as s:
        user = _find(s, name)
    ok = _password_matches(password, user.password_hash if user is not None else "")
    if user is None or not user.password_hash or not ok:
        guard.wrong_password(policy)
        raise PermissionDenied(WRONG_CREDENTIALS)
    guard.settle_right_password(db, keys, policy, forgive_name=not user.disabled)
    if user.disabled:  # said only to someone who knows the password
        raise PermissionDenied(DISABLED)
    return view_of(user)


def sso_user(db: Database, email: str, display_name: str = "") -> UserView:
    """The account for a single-sign-on identity, created on first sign-in (no password)."""
    with db.write() as s:
        user = s.exec(select(User).where(User.email == email)).first()
        if user is None:
            first = s.exec(select(func.count()).select_from(User)).one() == 0
            base = _sso_base_name(display_name, email)
            name, n = base, 1
            while _find(s, name) is not None:
                n += 1
                name = f"{base}{n}"
            user = User(name=name, email=email, role="admin" if first else "user")
            s.add(user)
    if user.disabled:
        raise PermissionDenied(DISABLED)
    return view_of(user)


def _sso_base_name(display_name: str, email: str) -> str:
    """A user name from an identity provider's display name (or the e-mail's local part) that
    passes the name policy; "user" when neither does."""
    for candidate in (display_name, email.split("@")[0]):
        text = re.sub(r"\s+", "", candidate or "")
        try:
            return clean_user_name(text)
        except InvalidInput:
            continue
    return "user"


def get_user(db: Database, user_id: str) -> UserView:
    with db.read() as s:
        user = s.get(User, user_id)
    if user is None:
        raise NotFound("user not found")
    return view_of(user)


def list_users(db: Database, actor: Actor) -> list[UserView]:
    """Every account with its role and e-mail: admins only (sharing has ``share_candidates``)."""
    require_admin(actor, "list the accounts")
    with db.read() as s:
        users = list(s.exec(select(User).order_by(User.name)))
    return [view_of(u) for u in users]


def _admins_left(session: Session, without: User) -> int:
    admins = session.exec(select(User).where(User.role == "admin", User.id != without.id))
    return sum(1 for u in admins if not u.disabled)


def set_role(db: Database, actor: Actor, user_name: str, role: str) -> UserView:
    require_admin(actor, "change roles")
    if role not in ("admin", "user"):
        raise InvalidInput("role must be admin or user")
    with db.write() as s:
        user = _named(s, user_name)
        if user.role == "admin" and role == "user" and _admins_left(s, user) == 0:
            raise InvalidInput("the last admin cannot be demoted")
        user.role = role
        s.add(user)
    return view_of(user)


def set_disabled(db: Database, actor: Actor, user_name: str, disabled: bool) -> UserView:
    """Disable (sessions closed at once, sign-in refused) or enable an account. Admins only."""
    require_admin(actor, "disable or enable accounts")
    with db.write() as s:
        user = _named(s, user_name)
        if disabled and user.id == actor.user_id:
            raise InvalidInput("you cannot disable your own account")
        if disabled and user.role == "admin" and _admins_left(s, user) == 0:
            raise InvalidInput("the last admin cannot be disabled")
        user.disabled = disabled
        s.add(user)
    if disabled:
        sessions.close_all_for(db, user.id)
    return view_of(user)


def reset_password(db: Database, actor: Actor, user_name: str, new_password: str) -> UserView:
    """An admin sets a new password for someone; their sessions end and a lock on the name lifts."""
    require_admin(actor, "reset passwords")
    _check_password(new_password)
    with db.write() as s:
        user = _named(s, user_name)
        user.password_hash = _hash(new_password)
        s.add(user)
    sessions.close_all_for(db, user.id)
    guard.clear_name(db, user_name_key(user.name))
    return view_of(user)


def change_password(db: Database, actor: Actor, old_password: str, new_password: str, *,
                    policy: guard.SignInPolicy = guard.DEFAULT_POLICY, now: datetime | None = None) -> None:
    """A user changes their own password (the old one is required); every session of theirs ends,
    the caller opens a new one for the browser it is in. Checking the current password is counted
    and locked out like a sign-in, on the same counter as the account's name."""
    _check_password(new_password)
    with db.read() as s:
        user = s.get(User, actor.user_id)
    if user is None:
        raise PermissionDenied("the current password is wrong")
    keys = guard.throttle_keys(user_name_key(user.name), "")
    guard.reserve_attempt(db, keys, policy, now=now or datetime.now(timezone.utc))
    if not user.password_hash or not _password_matches(old_password, user.password_hash):
        guard.wrong_password(policy)
        raise PermissionDenied("the current password is wrong")
    guard.settle_right_password(db, keys, policy, forgive_name=True)
    if old_password == new_password:
        raise InvalidInput("the new password is the same as the current one")
    with db.write() as s:
        row = s.get(User, actor.user_id)
        row.password_hash = _hash(new_password)
        s.add(row)
    sessions.close_all_for(db, actor.user_id)


def close_user_sessions(db: Database, actor: Actor, user_name: str) -> int:
    """Sign a user out everywhere: themselves, or anyone for an admin."""
    if user_name_key(user_name) != user_name_key(actor.name):
        require_admin(actor, "sign other users out")
    with db.read() as s:
        user = _named(s, user_name)
    if user.id != actor.user_id:
        require_admin(actor, "sign other users out")
    return sessions.close_all_for(db, user.id)


def set_language(db: Database, actor: Actor, language: str) -> None:
    if language not in ("en", "zh"):
        raise InvalidInput("language must be en or zh")
    with db.write() as s:
        user = s.get(User, actor.user_id)
        if user is not None:
            user.language = language
            s.add(user)
