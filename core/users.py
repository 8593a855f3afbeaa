"""Local accounts: bcrypt-hashed passwords, roles admin/user; the first account becomes admin."""

from __future__ import annotations

import re

import bcrypt
from sqlmodel import func, select

from core.access import require_admin
from core.db.database import Database
from core.db.models import User
from core.errors import AlreadyExists, InvalidInput, NotFound, PermissionDenied
from core.types import Actor

_NAME = re.compile(r"^[\w.@-]{2,64}$")
MIN_PASSWORD = 8


def actor_of(user: User) -> Actor:
    return Actor(user_id=user.id, role=user.role, name=user.name)  # type: ignore[arg-type]


def _hash(password: str) -> str:
    # bcrypt only reads 72 bytes; longer passphrases are still accepted and truncated consistently
    return bcrypt.hashpw(password.encode()[:72], bcrypt.gensalt()).decode()


def user_count(db: Database) -> int:
    with db.read() as s:
        return int(s.exec(select(func.count()).select_from(User)).one())


def sign_up(db: Database, name: str, password: str, *, email: str = "", language: str = "en") -> User:
    """Create a local account. The first account of an installation becomes its admin."""
    name = (name or "").strip()
    if not _NAME.match(name):
        raise InvalidInput("user names are 2-64 letters, digits or . _ @ -")
    if len(password or "") < MIN_PASSWORD:
        raise InvalidInput(f"passwords need at least {MIN_PASSWORD} characters")
    with db.write() as s:
        if s.exec(select(User).where(User.name == name)).first():
            raise AlreadyExists(f"the user name '{name}' is taken")
        first = s.exec(select(func.count()).select_from(User)).one() == 0
        user = User(name=name, password_hash=_hash(password), role="admin" if first else "user",
                    email=email, language=language if language in ("en", "zh") else "en")
        s.add(user)
    return user


def authenticate(db: Database, name: str, password: str) -> User:
    with db.read() as s:
        user = s.exec(select(User).where(User.name == (name or "").strip())).first()
    # same message for unknown user and wrong password
    if user is None or not user.password_hash or not bcrypt.checkpw((password or "").encode()[:72], user.password_hash.encode()):
        raise PermissionDenied("wrong user name or password")
    return user


def sso_user(db: Database, email: str, display_name: str = "") -> User:
    """The account for a single-sign-on identity, created on first sign-in (no password)."""
    with db.write() as s:
        user = s.exec(select(User).where(User.email == email)).first()
        if user is None:
            first = s.exec(select(func.count()).select_from(User)).one() == 0
            base = re.sub(r"[^\w.@-]", "", display_name or email.split("@")[0]) or "user"
            name, n = base, 1
            while s.exec(select(User).where(User.name == name)).first():
                n += 1
                name = f"{base}{n}"
            user = User(name=name, email=email, role="admin" if first else "user")
            s.add(user)
    return user


def get_user(db: Database, user_id: str) -> User:
    with db.read() as s:
        user = s.get(User, user_id)
    if user is None:
        raise NotFound("user not found")
    return user


def list_users(db: Database, actor: Actor) -> list[User]:
    with db.read() as s:
        users = list(s.exec(select(User).order_by(User.name)))
    if not actor.is_admin:  # others see names only (for sharing), never hashes
        return [User(id=u.id, name=u.name, role=u.role) for u in users]
    return [User(**{**u.model_dump(), "password_hash": ""}) for u in users]


def set_role(db: Database, actor: Actor, user_name: str, role: str) -> User:
    require_admin(actor, "change roles")
    if role not in ("admin", "user"):
        raise InvalidInput("role must be admin or user")
    with db.write() as s:
        user = s.exec(select(User).where(User.name == user_name)).first()
        if user is None:
            raise NotFound(f"user '{user_name}' not found")
        if user.role == "admin" and role == "user":
            admins = s.exec(select(func.count()).select_from(User).where(User.role == "admin")).one()
            if admins <= 1:
                raise InvalidInput("the last admin cannot be demoted")
        user.role = role
        s.add(user)
    return user


def set_language(db: Database, actor: Actor, language: str) -> None:
    if language not in ("en", "zh"):
        raise InvalidInput("language must be en or zh")
    with db.write() as s:
        user = s.get(User, actor.user_id)
        if user is not None:
            user.language = language
            s.add(user)
