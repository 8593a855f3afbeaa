"""The CLI's subcommands. Each handler opens the engine, calls it as the local admin, prints."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from core.cli.context import emit, local_engine
from core.services.declare import operations_of
from core.types import SYSTEM_ACTOR


def _index_kb(args: argparse.Namespace) -> int:
    """Never handed off: the build would freeze the dashboard's process for its whole length."""
    advice = ("building the index holds the embedded store for minutes (about 8 for a million chunks on two "
              "cores): stop the dashboard, run this, start it again")
    with local_engine(args, advice, command="kb index") as engine:
        if not args.json:
            kb = engine.get_kb(SYSTEM_ACTOR, args.name)  # an unknown name fails before the message
            print(f"indexing '{kb.name}' where it needs it (the store stays busy until this ends)", file=sys.stderr)
        report = engine.index_kb(SYSTEM_ACTOR, args.name)
    emit(args, report, lambda r: f"{r['kb']}: {r['note']}" + (f" in {r['seconds']:.1f} s" if r["indexed"] else ""))
    return 0


def _detach_option(ingest: argparse.ArgumentParser) -> None:
    """After the derived ``ingest``'s arguments, its ``--detach``: the files stored and queued for the
    workers (core/cli/job_commands.py), the vector store never opened, so it works while the
    dashboard holds it; not an operation's parameter, so a hand-written branch."""
    ingest.add_argument("--detach", action="store_true",
                        help="store the files and queue them for the workers; print the job ids (works while the dashboard runs)")
    ingest.set_defaults(handler=partial(_ingest_or_detach, ingest.get_default("handler")))


def _ingest_or_detach(derived_ingest, args: argparse.Namespace) -> int:
    if args.detach:
        from core.cli.job_commands import cmd_ingest_detach

        return cmd_ingest_detach(args)
    return derived_ingest(args)


def cmd_parse(args: argparse.Namespace) -> int:
    from core.storage.data_folder import check_data_folder, sqlite_path
    from core.db.database import Database
    from core.config import RuntimeConfig
    from core.parsers.base import ParseContext
    from core.settings.store import SettingsStore

    config = RuntimeConfig.from_env(args.data_dir)
    if config.data_dir.exists():  # its settings (the URL guard's allow-list) count only if the folder is ours
        check_data_folder(config.data_dir, sqlite_path(config.database_url), config.data_dir_link)
    settings = SettingsStore(Database(config.database_url)).current() if config.data_dir.exists() else None
    from core.settings.model import Settings

    ctx = ParseContext(settings=(settings or Settings()).parsing)
    if args.source.startswith(("http://", "https://")):
        from core.parsers.url import fetch_url

        doc = fetch_url(args.source, ctx)
    else:
        from core.parsers.registry import parse_path

        doc = parse_path(Path(args.source), ctx)
    emit(args, doc.to_dict(), lambda d: doc.text + ("\n\nwarnings: " + "; ".join(doc.warnings) if doc.warnings else ""))
    return 0


def _operations(service: str) -> list:
    """The operations of one of core's services (its name in ``core.operations.SERVICES``), read only
    when one of its commands is run or its help shown: the CLI starts without importing them."""
    from core.operations import SERVICES

    return operations_of(service, SERVICES[service])



def _hand_written_kb_commands(kb: argparse.ArgumentParser) -> None:
    """After the derived ones, what the derived CLI does not express: ``kb index`` (never handed off,
    with its own advice in the refusal, and it names the resolved knowledge base on stderr before the
    minutes-long build: two calls)."""
    ix = kb.derived_commands.add_parser("index", help="build the search index of a large knowledge base "
                                        "(embedded store; stop the dashboard first)")
    ix.add_argument("name")
    ix.set_defaults(handler=_index_kb)











def register(sub: argparse._SubParsersAction) -> None:
    from core.cli import derived  # issue 34: kb create, list, rename, delete derived from their operations
    from core.services import cli_groups

    kb = derived.register_later(sub, cli_groups.KB, partial(_operations, "kbs"))
    kb.when_filled.append(_hand_written_kb_commands)

    # issue 34: ingest derived from the file service's operation (progress on stderr: Cli(progress=...));
    # --detach a hand-written branch added once its arguments are made
    ingest = derived.register_command_later(sub, "ingest", cli_groups.INGEST_HELP, partial(_operations, "files"))
    ingest.when_filled.append(_detach_option)

    derived.register_later(sub, cli_groups.FILES, partial(_operations, "files"))  # issue 34: files list, delete

    # issue 34: reindex derived from the file service's operation (progress on stderr: Cli(progress=...))
    derived.register_command_later(sub, "reindex", cli_groups.REINDEX_HELP, partial(_operations, "files"))

    # issue 34: search derived from the answer service's operation
    derived.register_command_later(sub, "search", cli_groups.SEARCH_HELP, partial(_operations, "answers"))

    # issue 34: doctor derived from the job service's operation
    derived.register_command_later(sub, "doctor", cli_groups.DOCTOR_HELP, partial(_operations, "jobs"))

    derived.register_later(sub, cli_groups.SETTINGS, partial(_operations, "settings"))  # issue 34: settings get, set

    pa = sub.add_parser("parse", help="print the text extracted from a file or URL")
    pa.add_argument("source")
    pa.set_defaults(handler=cmd_parse)

    from core.cli import db_commands, demo_commands, extra_commands

    extra_commands.register(sub)
    # issue 34: ask and compare derived from the answer service's operations (ask, compare_scored)
    derived.register_command_later(sub, "ask", cli_groups.ASK_HELP, partial(_operations, "answers"))
    derived.register_command_later(sub, "compare", cli_groups.COMPARE_HELP, partial(_operations, "answers"))
    derived.register_later(sub, cli_groups.CURATED, partial(_operations, "curated"))
    db_commands.register(sub)
    # issue 34: sources list, add-web, add-folder, add-webdav, add-dingtalk, dingtalk-workspaces, sync, log
    derived.register_later(sub, cli_groups.SOURCES, partial(_operations, "sources"))
    # issue 12: gdrive connect, status, ls, import, sync, disconnect derived from the Drive plugin's
    # operations, made with the other plugins' commands (core/cli/main.py); its place is here, beside sources
    from core.gdrive.drive_service import GDRIVE

    derived.reserve_group(sub, GDRIVE)
    # issue 34: users list, set-role, disable, enable, reset-password, sign-out, create; tokens create,
    # list, revoke (issue 19): the database alone, run here beside any process holding the store
    derived.register_later(sub, cli_groups.USERS, partial(_operations, "accounts"))
    derived.register_later(sub, cli_groups.TOKENS, partial(_operations, "accounts"))
    derived.register_later(sub, cli_groups.CHATS, partial(_operations, "chats"))  # issue 34: chats list, show, export
    derived.register_later(sub, cli_groups.JOBS, partial(_operations, "jobs"))  # issue 34: jobs list, show, wait, cancel
    from core.cli import job_commands  # issue 20: detached ingest, workers

    job_commands.register(sub)
    demo_commands.register(sub)
    from core.cli import api_commands  # issue 19: the HTTP API

    api_commands.register(sub)
    from core.cli import mcp_commands  # issue 35: the MCP server (stdio; HTTP is beside the API)

    mcp_commands.register(sub)
    # issue 35: chunk editing, metadata fields and values, assistants
    derived.register_later(sub, cli_groups.CHUNKS, partial(_operations, "chunk_edits"))
    derived.register_later(sub, cli_groups.FIELDS, partial(_operations, "metadata"))
    derived.register_later(sub, cli_groups.META, partial(_operations, "metadata"))
    derived.register_later(sub, cli_groups.ASSISTANTS, partial(_operations, "assistants"))
