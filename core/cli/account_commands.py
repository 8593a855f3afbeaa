"""``users`` (list, set-role, disable, enable, reset-password, sign-out; ``create`` is in
token_commands.py), as the local admin. Passwords are read from the terminal or standard input,
never from the command line (it is visible to every local user in ``ps``). Knowledge-base sharing
(``kb share``, ``unshare``, ``shared``) is derived from the knowledge-base service's operations."""

from __future__ import annotations

import argparse

from core.cli.context import accounts_engine, emit, read_password, user_row
from core.types import SYSTEM_ACTOR


def cmd_users(args: argparse.Namespace) -> int:
    with accounts_engine(args) as engine:  # the database alone: runs beside the dashboard
        if args.users_command == "list":
            rows = [user_row(u) for u in engine.list_users(SYSTEM_ACTOR)]
            emit(args, rows, lambda rs: "\n".join(
                f"{r['name']:<24} {r['role']:<6} {'disabled' if r['disabled'] else 'active':<9} {r['email']}".rstrip()
                for r in rs) or "no users")
        elif args.users_command == "set-role":
            user = engine.set_role(SYSTEM_ACTOR, args.name, args.role)
            emit(args, user_row(user), lambda r: f"{r['name']} is now {r['role']}")
        elif args.users_command in ("disable", "enable"):
            user = engine.set_user_disabled(SYSTEM_ACTOR, args.name, args.users_command == "disable")
            emit(args, user_row(user), lambda r: f"{r['name']} is {'disabled and signed out everywhere' if r['disabled'] else 'enabled'}")
        elif args.users_command == "reset-password":
            user = engine.reset_password(SYSTEM_ACTOR, args.name, read_password())
            emit(args, user_row(user), lambda r: f"password of {r['name']} reset; their sessions ended")
        elif args.users_command == "sign-out":
            ended = engine.close_user_sessions(SYSTEM_ACTOR, args.name)
            emit(args, {"name": args.name, "sessions_ended": ended}, lambda r: f"{r['sessions_ended']} session(s) of {r['name']} ended")
    return 0


def register_users(sub: argparse._SubParsersAction) -> None:
    users = sub.add_parser("users", help="list accounts, change roles, disable/enable, reset passwords")
    users.set_defaults(handler=cmd_users)
    us = users.add_subparsers(dest="users_command", required=True)
    us.add_parser("list")
    role = us.add_parser("set-role")
    role.add_argument("name")
    role.add_argument("role", choices=["admin", "user"])
    for verb, text in (("disable", "refuse sign-in and end the user's sessions"), ("enable", "allow sign-in again"),
                       ("reset-password", "set a new password (read from the terminal or stdin)"),
                       ("sign-out", "end every session of the user")):
        us.add_parser(verb, help=text).add_argument("name")
    from core.cli.token_commands import register_users_create

    register_users_create(us)
