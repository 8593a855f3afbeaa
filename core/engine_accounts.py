"""The engine's accounts and sessions methods, kept beside ``core/engine.py`` so that file stays
readable. ``Engine`` inherits them; ``AccountsEngine`` has them over the database alone."""

from __future__ import annotations

import weakref
from pathlib import Path

from core.accounts import api_tokens, sessions, users
from core.accounts.api_tokens import CreatedToken, TokenView
from core.accounts.users import UserView
from core.types import Actor


class AccountMethods:
    """Mixed into ``core.engine.Engine`` (uses its db)."""

    # ==================================================================== users and sessions
    # (auth branch: core/accounts/users.py, core/accounts/sessions.py, core/accounts/signin_guard.py). Users leave the engine
    # as UserView (no password hash); a browser holds a session token, the database its hash.
    def sign_up(self, name: str, password: str, **kw) -> UserView:
        return users.sign_up(self._db, name, password, **kw)

    def create_user(self, actor: Actor, name: str, password: str, role: str | None = None) -> UserView:
        """Admins: an account made without the sign-up page (``python -m core users create``)."""
        return users.create_user(self._db, actor, name, password, role=role)

    def sign_in(self, name: str, password: str, client: str = "") -> UserView:
        """Check a password; failures are slowed down and locked out per name and per ``client``."""
        return users.authenticate(self._db, name, password, client=client)

    def sso_sign_in(self, email: str, display_name: str = "") -> UserView:
        return users.sso_user(self._db, email, display_name)

    def user_count(self) -> int:
        return users.user_count(self._db)

    def actor_for(self, user_id: str) -> Actor:
        return users.actor_of(users.get_user(self._db, user_id))

    def user(self, user_id: str) -> UserView:
        return users.get_user(self._db, user_id)

    def list_users(self, actor: Actor) -> list[UserView]:
        return users.list_users(self._db, actor)

    def set_role(self, actor: Actor, user_name: str, role: str) -> UserView:
        return users.set_role(self._db, actor, user_name, role)

    def set_language(self, actor: Actor, language: str) -> None:
        users.set_language(self._db, actor, language)

    def set_user_disabled(self, actor: Actor, user_name: str, disabled: bool) -> UserView:
        """Admins: disable (their sessions end at once) or enable an account."""
        return users.set_disabled(self._db, actor, user_name, disabled)

    def reset_password(self, actor: Actor, user_name: str, new_password: str) -> UserView:
        """Admins: set someone's password; their sessions end."""
        return users.reset_password(self._db, actor, user_name, new_password)

    def change_password(self, actor: Actor, old_password: str, new_password: str) -> None:
        """A user's own password; every session of theirs ends (open a new one for this browser)."""
        users.change_password(self._db, actor, old_password, new_password)

    def open_session(self, user_id: str, client: str = "") -> str:
        """A session token for a user who just signed in (the database keeps only its hash)."""
        users.get_user(self._db, user_id)
        return sessions.open_session(self._db, user_id, client)

    def session_actor(self, token: str) -> Actor | None:
        """Who a session token belongs to; None when unknown, expired, revoked or the user is disabled."""
        user = sessions.session_user(self._db, token)
        return users.actor_of(user) if user is not None else None

    def close_session(self, token: str) -> None:
        """Sign-out: the token stops working in every process."""
        sessions.close_session(self._db, token)

    def close_user_sessions(self, actor: Actor, user_name: str) -> int:
        """Sign a user out everywhere (themselves, or anyone for an admin); returns how many ended."""
        return users.close_user_sessions(self._db, actor, user_name)

    # ---------------------------------------------------------------- API tokens (core/accounts/api_tokens.py)
    def create_api_token(self, actor: Actor, label: str = "", expires_days: int | None = None) -> CreatedToken:
        """A token for the actor themselves; ``.token`` is the secret, shown this once."""
        return api_tokens.create(self._db, actor, label, expires_days)

    def create_api_token_for(self, actor: Actor, user_name: str, label: str = "",
                             expires_days: int | None = None) -> CreatedToken:
        """Admins: a token for another account."""
        return api_tokens.create_for(self._db, actor, user_name, label, expires_days)

    def list_api_tokens(self, actor: Actor, user_name: str | None = None) -> list[TokenView]:
        """Own tokens, or ``user_name``'s (admins); never the secret."""
        return api_tokens.list_tokens(self._db, actor, user_name)

    def list_all_api_tokens(self, actor: Actor) -> list[TokenView]:
        """Admins: every account's tokens."""
        return api_tokens.list_tokens(self._db, actor, everyone=True)

    def revoke_api_token(self, actor: Actor, token_id: str) -> None:
        """Own tokens; admins any. It stops working in every process at once."""
        api_tokens.revoke(self._db, actor, token_id)

    def actor_for_api_token(self, token: str, *, client: str = "") -> Actor:
        """The API's door: who ``token`` acts for, or NotAuthenticated (missing, malformed, wrong,
        expired, revoked, disabled account; a client with too many failures is refused at once)."""
        return api_tokens.actor_for_token(self._db, token, client=client)
    # ==================================================================== end users and sessions


class AccountsEngine(AccountMethods):
    """The account methods (users, sessions, API tokens) over the database alone, without the vector
    store. The CLI's ``users create`` and ``tokens`` commands use it, so they run even while the
    dashboard holds the embedded store, without the hand-off: SQLite (WAL, BEGIN IMMEDIATE) and
    PostgreSQL take writers from several processes, and every check reads the database."""

    def __init__(self, config) -> None:
        from core.db.database import Database
        from core.secrets.box import install_log_scrubbing
        from core.storage.data_folder import PrivateDataFolder, sqlite_path

        self.config = config
        self._data_folder = PrivateDataFolder(config.data_dir, sqlite_path(config.database_url))
        weakref.finalize(self, self._data_folder.close)
        install_log_scrubbing()  # a token printed by mistake into a log line is masked here too
        self._db = Database(config.database_url)

    @classmethod
    def open(cls, data_dir: str | Path | None = None) -> "AccountsEngine":
        from core.config import RuntimeConfig

        return cls(RuntimeConfig.from_env(data_dir))

    def close(self) -> None:
        self._db.dispose()
        self._data_folder.close()

    def __enter__(self) -> "AccountsEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
