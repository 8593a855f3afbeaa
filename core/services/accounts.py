"""Accounts: sign-up and sign-in, users and roles, browser sessions, API tokens (core/accounts/).

Users leave the service as ``UserView`` (no password hash); a browser holds a session token and
the database its hash; an API token likewise."""

from __future__ import annotations

from core.accounts import api_tokens, sessions, users
from core.accounts.api_tokens import CreatedToken, TokenView
from core.accounts.users import UserView
from core.db.database import Database
from core.services.declare import operation
from core.types import Actor


class AccountService:
    def __init__(self, db: Database):
        self._db = db

    @operation(access="open", why="creates a plain user (the first one only becomes admin)")
    def sign_up(self, name: str, password: str, **kw) -> UserView:
        return users.sign_up(self._db, name, password, **kw)

    @operation()
    def create_user(self, actor: Actor, name: str, password: str, role: str | None = None) -> UserView:
        """Admins: an account made without the sign-up page (``python -m core users create``)."""
        return users.create_user(self._db, actor, name, password, role=role)

    @operation(access="open", why="checks a password")
    def sign_in(self, name: str, password: str, client: str = "") -> UserView:
        """Check a password; failures are slowed down and locked out per name and per ``client``."""
        return users.authenticate(self._db, name, password, client=client)

    @operation(access="open", why="identity asserted by the SSO proxy in front")
    def sso_sign_in(self, email: str, display_name: str = "") -> UserView:
        return users.sso_user(self._db, email, display_name)

    @operation(access="open", why="how many accounts exist (a number, no names)")
    def user_count(self) -> int:
        return users.user_count(self._db)

    @operation(access="open", why="the session's own user id (dashboard/auth); views carry no password hash")
    def actor_for(self, user_id: str) -> Actor:
        return users.actor_of(users.get_user(self._db, user_id))

    @operation(access="open", why="same as actor_for")
    def user(self, user_id: str) -> UserView:
        return users.get_user(self._db, user_id)

    @operation()
    def list_users(self, actor: Actor) -> list[UserView]:
        return users.list_users(self._db, actor)

    @operation()
    def set_role(self, actor: Actor, user_name: str, role: str) -> UserView:
        return users.set_role(self._db, actor, user_name, role)

    @operation()
    def set_language(self, actor: Actor, language: str) -> None:
        users.set_language(self._db, actor, language)

    @operation()
    def set_user_disabled(self, actor: Actor, user_name: str, disabled: bool) -> UserView:
        """Admins: disable (their sessions end at once) or enable an account."""
        return users.set_disabled(self._db, actor, user_name, disabled)

    @operation()
    def reset_password(self, actor: Actor, user_name: str, new_password: str) -> UserView:
        """Admins: set someone's password; their sessions end."""
        return users.reset_password(self._db, actor, user_name, new_password)

    @operation()
    def change_password(self, actor: Actor, old_password: str, new_password: str) -> None:
        """A user's own password; every session of theirs ends (open a new one for this browser)."""
        users.change_password(self._db, actor, old_password, new_password)

    @operation(access="open", why="called by dashboard/auth right after sign_in checked the password")
    def open_session(self, user_id: str, client: str = "") -> str:
        """A session token for a user who just signed in (the database keeps only its hash)."""
        users.get_user(self._db, user_id)
        return sessions.open_session(self._db, user_id, client)

    @operation(access="open", why="the token is the credential")
    def session_actor(self, token: str) -> Actor | None:
        """Who a session token belongs to; None when unknown, expired, revoked or the user is disabled."""
        user = sessions.session_user(self._db, token)
        return users.actor_of(user) if user is not None else None

    @operation(access="open", why="the token is the credential")
    def close_session(self, token: str) -> None:
        """Sign-out: the token stops working in every process."""
        sessions.close_session(self._db, token)

    @operation()
    def close_user_sessions(self, actor: Actor, user_name: str) -> int:
        """Sign a user out everywhere (themselves, or anyone for an admin); returns how many ended."""
        return users.close_user_sessions(self._db, actor, user_name)

    @operation()
    def create_api_token(self, actor: Actor, label: str = "", expires_days: int | None = None) -> CreatedToken:
        """A token for the actor themselves; ``.token`` is the secret, shown this once."""
        return api_tokens.create(self._db, actor, label, expires_days)

    @operation()
    def create_api_token_for(self, actor: Actor, user_name: str, label: str = "",
                             expires_days: int | None = None) -> CreatedToken:
        """Admins: a token for another account."""
        return api_tokens.create_for(self._db, actor, user_name, label, expires_days)

    @operation()
    def list_api_tokens(self, actor: Actor, user_name: str | None = None) -> list[TokenView]:
        """Own tokens, or ``user_name``'s (admins); never the secret."""
        return api_tokens.list_tokens(self._db, actor, user_name)

    @operation()
    def list_all_api_tokens(self, actor: Actor) -> list[TokenView]:
        """Admins: every account's tokens."""
        return api_tokens.list_tokens(self._db, actor, everyone=True)

    @operation()
    def revoke_api_token(self, actor: Actor, token_id: str) -> None:
        """Own tokens; admins any. It stops working in every process at once."""
        api_tokens.revoke(self._db, actor, token_id)

    @operation(access="open", why="the API token is the credential")
    def actor_for_api_token(self, token: str, *, client: str = "") -> Actor:
        """The API's door: who ``token`` acts for, or NotAuthenticated (missing, malformed, wrong,
        expired, revoked, disabled account; a client with too many failures is refused at once)."""
        return api_tokens.actor_for_token(self._db, token, client=client)


