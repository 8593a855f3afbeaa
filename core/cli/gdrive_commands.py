"""``python -m core gdrive ...``: connect, status, ls, import, sync, disconnect (all with --json).
(``python -m core sources ...`` is derived from the source service's operations: core/services/sources.py.)

The CLI acts as its local operator, whose Drive connection is its own (made with
``gdrive connect``, the refresh token read from standard input or ``--refresh-token-file``, as
passwords are: on the command line every local user would read it in ``ps``); no command shows or
prints a token.
"""

from __future__ import annotations

import argparse

from core.cli.context import emit, engine_for
from core.services.source_outputs import report_text
from core.types import SYSTEM_ACTOR

A = SYSTEM_ACTOR


def _status_line(st: dict) -> str:
    if st["missing"]:
        return "Google Drive is not set up: missing " + ", ".join(st["missing"])
    if st["state"] == "reconnect":
        return f"reconnect needed: {st['error']}"
    return f"connected as {st['email'] or st['name']}" if st["connected"] else "not connected"


def _source_row(row) -> dict:
    return {"id": row.id, "kind": row.kind, "kb_id": row.kb_id, "title": row.title, "watch": row.watch,
            "state": row.state, "last_sync_at": row.last_sync_at, "last_error": row.last_error}


def read_refresh_token(args: argparse.Namespace) -> str:
    """From ``--refresh-token-file`` (a path, or - for standard input), else standard input: the
    terminal asks without echo, a pipe gives its first line. Never from the command line."""
    import getpass
    import sys

    from core.errors import InvalidInput

    if args.refresh_token is not None:
        raise InvalidInput("a refresh token on the command line is readable by every local user (ps): give it on "
                           "standard input (`gdrive connect < token.txt`) or with --refresh-token-file PATH")
    path = args.refresh_token_file
    if path and path != "-":
        try:
            with open(path, encoding="utf-8") as f:
                text = f.readline()
        except OSError as exc:
            raise InvalidInput(f"cannot read the refresh token file {path}: {exc.strerror}") from None
    elif sys.stdin is not None and sys.stdin.isatty():
        text = getpass.getpass("Google Drive refresh token: ")
    else:
        text = sys.stdin.readline() if sys.stdin is not None else ""
    token = text.strip()
    if not token:
        raise InvalidInput("no refresh token: give it on standard input or with --refresh-token-file PATH")
    return token


def cmd_gdrive(args: argparse.Namespace) -> int:
    token = read_refresh_token(args) if args.gdrive_command == "connect" else ""
    with engine_for(args) as engine:
        action = args.gdrive_command
        if action == "connect":
            emit(args, engine.gdrive_connect_refresh_token(A, token), _status_line)
        elif action == "status":
            st = dict(engine.gdrive_status(A), sources=[_source_row(r) for r in engine.sources(A, kind="gdrive")])
            emit(args, st, lambda s: "\n".join([_status_line(s)] + [f"  source {r['id']}: {r['title']} → kb {r['kb_id']}"
                                                                      f" ({'watched' if r['watch'] else 'manual'}, {r['state']})"
                                                                      for r in s["sources"]]))
        elif action == "ls":
            rows = engine.gdrive_list(A, args.folder_id, args.query or "")
            emit(args, rows, lambda rs: "\n".join(f"{'📁' if r['folder'] else '  '} {r['id']}  {r['name']}"
                                                  f"  {r['modified'][:10]}  {r['owner']}" for r in rs) or "(empty)")
        elif action == "import":
            report = engine.gdrive_import(A, args.kb, args.ids, watch=args.watch).as_dict()
            emit(args, report, report_text)
            return 0 if report["status"] == "done" and not report["failed"] else 1
        elif action == "sync":
            reports = [r.as_dict() for r in (engine.run_scheduled_syncs() if args.due else engine.gdrive_sync(A, args.kb))]
            emit(args, reports, lambda rs: "\n".join(map(report_text, rs)) or "no Drive sources to sync")
            return 0 if all(r["status"] == "done" and not r["failed"] for r in reports) else 1
        elif action == "disconnect":
            emit(args, engine.gdrive_disconnect(A), lambda d: "disconnected" + (
                "" if d["revoked_at_google"] else " (Google could not confirm the revocation; tokens deleted here)"))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser("gdrive", help="Google Drive: connect, browse, import into a knowledge base, sync")
    g.set_defaults(handler=cmd_gdrive)
    gs = g.add_subparsers(dest="gdrive_command", required=True)
    c = gs.add_parser("connect", help="connect with a refresh token read from standard input (servers without a browser)")
    c.add_argument("--refresh-token-file", metavar="PATH", help="read the token from this file (- for standard input)")
    c.add_argument("--refresh-token", help=argparse.SUPPRESS)  # refused with how to give it instead
    gs.add_parser("status", help="set-up, connection and synced sources")
    ls = gs.add_parser("ls", help="list a folder (default My Drive; 'shared-with-me', 'shared-drives') or search")
    ls.add_argument("folder_id", nargs="?", default=None)
    ls.add_argument("--query", help="search file names")
    im = gs.add_parser("import", help="import files/folders (recursively) into a knowledge base")
    im.add_argument("--kb", required=True)
    im.add_argument("--watch", action="store_true", help="keep it synced on the schedule")
    im.add_argument("ids", nargs="+", metavar="ID")
    sy = gs.add_parser("sync", help="sync this operator's Drive sources now")
    sy.add_argument("--kb")
    sy.add_argument("--due", action="store_true",
                    help="for cron: every watched source that is due (any kind), each as its owner")
    gs.add_parser("disconnect", help="revoke the connection at Google and delete its tokens")
