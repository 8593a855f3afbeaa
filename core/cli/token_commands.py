"""``tokens`` (create, list, revoke) and ``users create``, as the local admin.

They need the database only, so they open ``AccountsEngine`` (no vector store): they run while the
dashboard holds the embedded store, without the hand-off. A token is printed once, when it is made;
nothing here can show it again. Passwords come from the terminal (no echo) or standard input.
"""

from __future__ import annotations

import argparse

from core.cli.context import accounts_engine, emit, read_password, user_row
from core.types import SYSTEM_ACTOR


def _token_row(t) -> dict:
    return {"id": t.id, "user": t.user_name, "label": t.label, "prefix": t.prefix, "created_at": t.created_at,
            "expires_at": t.expires_at, "last_used_at": t.last_used_at}


def _when(value) -> str:
    return f"{value:%Y-%m-%d %H:%M}" if value is not None else "-"


def cmd_tokens(args: argparse.Namespace) -> int:
    with accounts_engine(args) as engine:
        if args.tokens_command == "create":
            made = engine.create_api_token_for(SYSTEM_ACTOR, args.user, args.label, args.expires_days)
            row = {"id": made.id, "token": made.token, "user": made.user_name, "label": made.label,
                   "prefix": made.prefix, "created_at": made.created_at, "expires_at": made.expires_at}
            emit(args, row, lambda r: f"{r['token']}\n\nAPI token {r['id']} for {r['user']}"
                 + (f" ({r['label']})" if r["label"] else "")
                 + f", expires {_when(r['expires_at']) if r['expires_at'] else 'never'}.\n"
                 "Copy it now: it is shown only this once (ragdesk keeps only its hash).")
        elif args.tokens_command == "list":
            views = (engine.list_api_tokens(SYSTEM_ACTOR, args.user) if args.user
                     else engine.list_all_api_tokens(SYSTEM_ACTOR))
            emit(args, [_token_row(t) for t in views], lambda rs: "\n".join(
                f"{r['id']}  {r['prefix']}…  {r['user']:<16} {r['label'] or '-':<20} "
                f"expires {_when(r['expires_at']) if r['expires_at'] else 'never'}  last used {_when(r['last_used_at'])}" for r in rs) or "no API tokens")
        elif args.tokens_command == "revoke":
            engine.revoke_api_token(SYSTEM_ACTOR, args.id)
            emit(args, {"revoked": args.id}, lambda r: f"API token {r['revoked']} revoked; it stops working at once")
    return 0


def cmd_users_create(args: argparse.Namespace) -> int:
    with accounts_engine(args) as engine:
        user = engine.create_user(SYSTEM_ACTOR, args.name, read_password(), args.role)
    emit(args, user_row(user), lambda r: f"created {r['role']} account '{r['name']}'")
    return 0


def register_tokens(sub: argparse._SubParsersAction) -> None:
    tokens = sub.add_parser("tokens", help="API tokens of the HTTP API: create (shown once), list, revoke")
    tokens.set_defaults(handler=cmd_tokens)
    ts = tokens.add_subparsers(dest="tokens_command", required=True)
    c = ts.add_parser("create", help="make a token for a user and print it once")
    c.add_argument("--user", required=True, help="the account the token acts for")
    c.add_argument("--label", default="", help="what it is for (e.g. 'wiki bot')")
    c.add_argument("--expires-days", type=int, default=None, metavar="N", help="stop working after N days (default: never)")
    ls = ts.add_parser("list", help="tokens (never the secret) of every user, or of one")
    ls.add_argument("--user")
    ts.add_parser("revoke", help="stop a token at once").add_argument("id")


def register_users_create(users_sub: argparse._SubParsersAction) -> None:
    """Added under ``users``: ``users create NAME [--role admin|user]``, the password on stdin."""
    c = users_sub.add_parser("create", help="make an account (password from the terminal or stdin); "
                                            "the first account of a data folder may be made this way")
    c.add_argument("name")
    c.add_argument("--role", choices=["admin", "user"], default=None,
                   help="default: admin for the first account, user after")
    c.set_defaults(handler=cmd_users_create)
