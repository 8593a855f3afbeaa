"""Accounts: sign-up and sign-in, users and roles, browser sessions, API tokens (core/accounts/).

Users leave the service as ``UserView`` (no password hash); a browser holds a session token and
the database its hash; an API token likewise."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from core.accounts import api_tokens, sessions, users
from core.accounts.access import require_admin
from core.accounts.api_tokens import CreatedToken, TokenView
from core.accounts.users import UserView
from core.services.cli_groups import TOKENS, USERS
from core.services.declare import Arg, Cli, operation
from core.services.outputs import Revoked, SessionsEnded, TokenMade, TokenRow, UserRow
from core.types import Actor

if TYPE_CHECKING:
    from core.services.runtime import Runtime

NAME = Arg(metavar="name")  # the account a users subcommand acts on, as the hand-written CLI named it
NEW_PASSWORD = Arg(secret="new password")  # never an argument: ``ps`` shows those to every local user


def _when(printed: str | None) -> str:
    """A time of a printed row (str() of a datetime) to the minute, as ``tokens`` prints it."""
    return f"{datetime.fromisoformat(printed):%Y-%m-%d %H:%M}" if printed else "-"


def _user_line(r: dict) -> str:
    return f"{r['name']:<24} {r['role']:<6} {'disabled' if r['disabled'] else 'active':<9} {r['email']}".rstrip()


def _token_made(r: dict) -> str:
    """The secret on a line of its own (easy to copy, the only time it is shown), then what it is."""
    return (f"{r['token']}\n\nAPI token {r['id']} for {r['user']}" + (f" ({r['label']})" if r["label"] else "")
            + f", expires {_when(r['expires_at']) if r['expires_at'] else 'never'}.\n"
            "Copy it now: it is shown only this once (ragdesk keeps only its hash).")


def _token_line(r: dict) -> str:
    return (f"{r['id']}  {r['prefix']}…  {r['user']:<16} {r['label'] or '-':<20} "
            f"expires {_when(r['expires_at']) if r['expires_at'] else 'never'}  last used {_when(r['last_used_at'])}")


class AccountService:
    """Every operation here needs the database alone: the CLI's ``users`` and ``tokens`` run them in
    its own process (``Cli(store=False)``), beside a dashboard or worker holding the embedded store."""

    def __init__(self, rt: "Runtime"):
        self._db = rt.db

    @operation(access="open", why="creates a plain user (the first one only becomes admin)")
    def sign_up(self, name: str, password: str, **kw) -> UserView:
        return users.sign_up(self._db, name, password, **kw)

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

    # list, set-role, disable, enable, reset-password, sign-out, create: the CLI's users group, in this order
    @operation(cli=Cli("list", group=USERS, store=False, out=list[UserRow],
                       human=lambda rs: "\n".join(map(_user_line, rs)) or "no users"))
    def list_users(self, actor: Actor) -> list[UserView]:
        return users.list_users(self._db, actor)

    @operation(cli=Cli("set-role", group=USERS, store=False, out=UserRow,
                       args={"user_name": NAME, "role": Arg(choices=("admin", "user"))},
                       human=lambda r: f"{r['name']} is now {r['role']}"))
    def set_role(self, actor: Actor, user_name: str, role: str) -> UserView:
        return users.set_role(self._db, actor, user_name, role)

    @operation()
    def set_language(self, actor: Actor, language: str) -> None:
        users.set_language(self._db, actor, language)

    @operation()
    def set_user_disabled(self, actor: Actor, user_name: str, disabled: bool) -> UserView:
        """Admins: disable (their sessions end at once) or enable an account."""
        return users.set_disabled(self._db, actor, user_name, disabled)

    # set_user_disabled as two commands (no docstring: their help is the hand-written CLI's one line)
    @operation(cli=Cli("disable", group=USERS, store=False, out=UserRow, args={"user_name": NAME},
                       help="refuse sign-in and end the user's sessions",
                       human=lambda r: f"{r['name']} is disabled and signed out everywhere"))
    def disable_user(self, actor: Actor, user_name: str) -> UserView:
        return users.set_disabled(self._db, actor, user_name, True)

    @operation(cli=Cli("enable", group=USERS, store=False, out=UserRow, args={"user_name": NAME},
                       help="allow sign-in again", human=lambda r: f"{r['name']} is enabled"))
    def enable_user(self, actor: Actor, user_name: str) -> UserView:
        return users.set_disabled(self._db, actor, user_name, False)

    @operation(cli=Cli("reset-password", group=USERS, store=False, out=UserRow,
                       help="set a new password (read from the terminal or stdin)",
                       args={"user_name": NAME, "new_password": NEW_PASSWORD},
                       human=lambda r: f"password of {r['name']} reset; their sessions ended"))
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

    @operation(cli=Cli("sign-out", group=USERS, store=False, out=SessionsEnded, args={"user_name": NAME},
                       help="end every session of the user",
                       reply=lambda typed, ended: {"name": typed["user_name"], "sessions_ended": ended},
                       human=lambda r: f"{r['sessions_ended']} session(s) of {r['name']} ended"))
    def close_user_sessions(self, actor: Actor, user_name: str) -> int:
        """Sign a user out everywhere (themselves, or anyone for an admin); returns how many ended."""
        return users.close_user_sessions(self._db, actor, user_name)

    @operation(cli=Cli("create", group=USERS, store=False, out=UserRow,
                       help="make an account (password from the terminal or stdin); the first account of a "
                            "data folder may be made this way",
                       args={"password": NEW_PASSWORD, "role": Arg(
                           choices=("admin", "user"), help="default: admin for the first account, user after")},
                       human=lambda r: f"created {r['role']} account '{r['name']}'"))
    def create_user(self, actor: Actor, name: str, password: str, role: str | None = None) -> UserView:
        """Admins: an account made without the sign-up page."""
        return users.create_user(self._db, actor, name, password, role=role)

    @operation()
    def create_api_token(self, actor: Actor, label: str = "", expires_days: int | None = None) -> CreatedToken:
        """A token for the actor themselves; ``.token`` is the secret, shown this once."""
        return api_tokens.create(self._db, actor, label, expires_days)

    # create, list, revoke: the CLI's tokens group, in this order
    @operation(cli=Cli("create", group=TOKENS, store=False, out=TokenMade, human=_token_made,
                       help="make a token for a user and print it once",
                       args={"user_name": Arg(flag="--user", help="the account the token acts for"),
                             "label": Arg(help="what it is for (e.g. 'wiki bot')"),
                             "expires_days": Arg(metavar="N", help="stop working after N days (default: never)")}))
    def create_api_token_for(self, actor: Actor, user_name: str, label: str = "",
                             expires_days: int | None = None) -> CreatedToken:
        """Admins: a token for another account; its secret is shown this once, when it is made."""
        return api_tokens.create_for(self._db, actor, user_name, label, expires_days)

    @operation()
    def list_api_tokens(self, actor: Actor, user_name: str | None = None) -> list[TokenView]:
        """Own tokens, or ``user_name``'s (admins); never the secret."""
        return api_tokens.list_tokens(self._db, actor, user_name)

    @operation(cli=Cli("list", group=TOKENS, store=False, out=list[TokenRow],
                       help="tokens (never the secret) of every user, or of one",
                       args={"user_name": Arg(flag="--user")},
                       human=lambda rs: "\n".join(map(_token_line, rs)) or "no API tokens"))
    def list_all_api_tokens(self, actor: Actor, user_name: str | None = None) -> list[TokenView]:
        """Admins: every account's tokens, or one account's; never the secret."""
        if user_name is None:
            return api_tokens.list_tokens(self._db, actor, everyone=True)
        require_admin(actor, "list every user's API tokens")
        return api_tokens.list_tokens(self._db, actor, user_name)

    @operation(cli=Cli("revoke", group=TOKENS, store=False, out=Revoked, args={"token_id": Arg(metavar="id")},
                       help="stop a token at once", reply=lambda typed, _: {"revoked": typed["token_id"]},
                       human=lambda r: f"API token {r['revoked']} revoked; it stops working at once"))
    def revoke_api_token(self, actor: Actor, token_id: str) -> None:
        """Own tokens; admins any. It stops working in every process at once."""
        api_tokens.revoke(self._db, actor, token_id)

    @operation(access="open", why="the API token is the credential")
    def actor_for_api_token(self, token: str, *, client: str = "") -> Actor:
        """The API's door: who ``token`` acts for, or NotAuthenticated (missing, malformed, wrong,
        expired, revoked, disabled account; a client with too many failures is refused at once)."""
        return api_tokens.actor_for_token(self._db, token, client=client)


