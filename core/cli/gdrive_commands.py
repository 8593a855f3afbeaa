"""``python -m core sources ...``: every synced source (Drive and web pages), its sync and log;
``python -m core gdrive ...``'s place in the command list, beside it.

``gdrive connect``, ``status``, ``ls``, ``import``, ``sync`` and ``disconnect`` are derived from the
Drive plugin's operations (core/gdrive/drive_service.py, made by core/cli/main.py with the other
plugins' commands); the CLI acts as its local operator, whose Drive connection is its own.
"""

from __future__ import annotations

import argparse
import os

from core.cli import derived
from core.cli.context import emit, engine_for
from core.gdrive.drive_service import GDRIVE
from core.types import SYSTEM_ACTOR

A = SYSTEM_ACTOR


def _report_line(r: dict) -> str:
    head = (f"{r['status']}: {r['added']} added, {r['updated']} updated, {r['removed']} removed, {r['failed']} failed"
            + (f" — {r['error']}" if r["error"] else ""))
    rows = [f"  {x['action']:<9} {x['name']}" + (f"  ({x['error']})" if x["error"] else "") for x in r["results"]]
    return "\n".join([head, *rows])


def _source_row(row) -> dict:
    return {"id": row.id, "kind": row.kind, "kb_id": row.kb_id, "title": row.title, "watch": row.watch,
            "state": row.state, "last_sync_at": row.last_sync_at, "last_error": row.last_error}


def read_password(args: argparse.Namespace):
    """A WebDAV password from ``--password-file`` (or - for standard input), else standard input
    (the terminal asks without echo). Never from the command line: ``ps`` shows it to everyone."""
    return read_secret(args.password_file, "WebDAV password", "password", "--password-file")


def read_secret(path: str | None, prompt: str, what: str, option: str):
    """A credential (SecretStr) from a file (- for standard input), else standard input (the
    terminal asks without echo); never an argument."""
    import getpass
    import sys

    from pydantic import SecretStr

    from core.errors import InvalidInput

    if path and path != "-":
        try:
            with open(path, encoding="utf-8") as f:
                text = f.readline()
        except OSError as exc:
            raise InvalidInput(f"cannot read the {what} file {path}: {exc.strerror}") from None
    elif sys.stdin is not None and sys.stdin.isatty():
        text = getpass.getpass(f"{prompt}: ")
    else:
        text = sys.stdin.readline() if sys.stdin is not None else ""
    value = text.rstrip("\r\n")
    if not value:
        raise InvalidInput(f"no {what}: give it on standard input or with {option} PATH")
    return SecretStr(value)


def _not_handed_off(engine, operation: str, command: str) -> None:
    if not hasattr(engine, operation):  # handed off: a SecretStr would cross masked
        from core.errors import StoreError

        raise StoreError(f"sources {command} is not handed off to the process holding the store (the secret stays "
                         "in this process): use that dashboard's Synced sources panel, or run it while no process "
                         "holds the store")


def cmd_sources(args: argparse.Namespace) -> int:
    with engine_for(args) as engine:
        if args.sources_command == "list":
            emit(args, [_source_row(r) for r in engine.sources(A)], lambda rs: "\n".join(
                f"{r['id']}  {r['kind']:<6} {r['title']} → kb {r['kb_id']} ({'watched' if r['watch'] else 'manual'}, {r['state']})"
                for r in rs) or "no synced sources")
        elif args.sources_command == "add-web":
            report = engine.watch_web_pages(A, args.kb, args.urls, watch=not args.no_watch).as_dict()
            emit(args, report, _report_line)
            return 0 if report["status"] == "done" and not report["failed"] else 1
        elif args.sources_command in ("add-folder", "add-webdav"):
            if args.sources_command == "add-folder":
                report = engine.add_folder_source(A, args.kb, os.path.abspath(args.path), watch=not args.no_watch)
            else:
                _not_handed_off(engine, "add_webdav_source", "add-webdav")
                report = engine.add_webdav_source(A, args.kb, args.url, args.username, read_password(args),
                                                  watch=not args.no_watch)
            report = report.as_dict()
            emit(args, report, _report_line)
            return 0 if report["status"] == "done" and not report["failed"] else 1
        elif args.sources_command in ("add-dingtalk", "dingtalk-workspaces") and args.app_secret is not None:
            from core.errors import InvalidInput

            raise InvalidInput("the AppSecret is never taken on the command line (other users see it in ps): give it "
                               "on standard input or with --secret-file PATH")
        elif args.sources_command == "add-dingtalk":
            _not_handed_off(engine, "add_dingtalk_source", "add-dingtalk")
            secret = read_secret(args.secret_file, "DingTalk AppSecret", "AppSecret", "--secret-file")
            report = engine.add_dingtalk_source(A, args.kb, args.app_key, secret, args.operator, args.workspace,
                                                args.folder or "", watch=not args.no_watch).as_dict()
            emit(args, report, _report_line)
            return 0 if report["status"] == "done" and not report["failed"] else 1
        elif args.sources_command == "dingtalk-workspaces":
            _not_handed_off(engine, "dingtalk_workspaces", "dingtalk-workspaces")
            secret = read_secret(args.secret_file, "DingTalk AppSecret", "AppSecret", "--secret-file")
            rows = engine.dingtalk_workspaces(A, args.app_key, secret, args.operator)
            emit(args, rows, lambda rs: "\n".join(f"{r['id']}  {r['name']}" for r in rs) or "no knowledge bases")
        elif args.sources_command == "sync":
            report = engine.sync_source(A, args.source_id).as_dict()
            emit(args, report, _report_line)
            return 0 if report["status"] == "done" and not report["failed"] else 1
        elif args.sources_command == "log":
            rows = [{"when": e.started_at, "source_id": e.source_id, "trigger": e.trigger, "status": e.status,
                     "added": e.added, "updated": e.updated, "removed": e.removed, "failed": e.failed, "error": e.error}
                    for e in engine.sync_logs(A, args.source_id, limit=args.limit)]
            emit(args, rows, lambda rs: "\n".join(
                f"{str(r['when'])[:19]}  {r['trigger']:<8} {r['status']:<9} +{r['added']} ~{r['updated']} -{r['removed']} !{r['failed']}"
                for r in rs) or "no syncs yet")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    so = sub.add_parser("sources", help="synced sources (Drive selections, web pages, folders, WebDAV, DingTalk): "
                                        "list, add, sync, log")
    so.set_defaults(handler=cmd_sources)
    sos = so.add_subparsers(dest="sources_command", required=True)
    sos.add_parser("list")
    aw = sos.add_parser("add-web", help="add web pages to a knowledge base, re-fetched on the sync schedule")
    aw.add_argument("--kb", required=True)
    aw.add_argument("--no-watch", action="store_true", help="import once, sync by hand only")
    aw.add_argument("urls", nargs="+", metavar="URL")
    af = sos.add_parser("add-folder", help="admins: add a server folder (under an allowed root) to a knowledge base")
    af.add_argument("--kb", required=True)
    af.add_argument("--no-watch", action="store_true", help="import once, sync by hand only")
    af.add_argument("path", metavar="PATH")
    ad = sos.add_parser("add-webdav", help="add a WebDAV folder (Nextcloud, ownCloud...): the password is read "
                                           "from standard input or --password-file, stored encrypted")
    ad.add_argument("--kb", required=True)
    ad.add_argument("--username", required=True)
    ad.add_argument("--password-file", metavar="PATH", help="read the password from this file (- for standard input)")
    ad.add_argument("--no-watch", action="store_true", help="import once, sync by hand only")
    ad.add_argument("url", metavar="URL", help="the folder's WebDAV URL, e.g. https://cloud.example/remote.php/dav/files/me/Team/")
    dk = sos.add_parser("add-dingtalk", help="add a DingTalk knowledge base (钉钉知识库) or one folder of it: the "
                                             "AppSecret is read from standard input or --secret-file, stored encrypted")
    dw = sos.add_parser("dingtalk-workspaces", help="list the DingTalk knowledge bases the operator may read "
                                                    "(AppSecret from standard input or --secret-file)")
    for p in (dk, dw):
        p.add_argument("--app-key", required=True, help="the app's AppKey (client id)")
        p.add_argument("--operator", required=True, help="the operator's unionId (whose read access the app uses)")
        p.add_argument("--secret-file", metavar="PATH", help="read the AppSecret from this file (- for standard input)")
    dk.add_argument("--kb", required=True)
    dk.add_argument("--workspace", required=True, help="the knowledge base's id (sources dingtalk-workspaces lists them)")
    dk.add_argument("--folder", help="sync only this folder (its node id) of the knowledge base")
    dk.add_argument("--no-watch", action="store_true", help="import once, sync by hand only")
    for p in (dk, dw):
        p.add_argument("--app-secret", help=argparse.SUPPRESS)  # refused with how to give it instead
    ss = sos.add_parser("sync", help="sync one source now")
    ss.add_argument("source_id")
    lg = sos.add_parser("log", help="the sync log")
    lg.add_argument("source_id", nargs="?", default=None)
    lg.add_argument("--limit", type=int, default=20)

    derived.reserve_group(sub, GDRIVE)  # issue 34: its commands derived from the Drive plugin's operations
