"""``python -m core mcp``: the MCP server over stdio, for desktop assistants (see core/mcp/)."""

from __future__ import annotations

import argparse
import os
import signal
import sys


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(0)  # through Python, so the engine is closed below (running jobs go back to the queue)


def cmd_mcp(args: argparse.Namespace) -> int:
    from core.api.backend import open_backend
    from core.handoff.holder import set_role
    from core.mcp.stdio import TOKEN_ENV, check_token, read_token, serve_stdio

    token = read_token(args.token_file)  # refused before the engine is opened
    os.environ.pop(TOKEN_ENV, None)  # not inherited by the processes the engine starts (OCR, parsers)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    set_role("an MCP server", "python -m core mcp")  # what a CLI handing off to it is told
    backend = open_backend(args.data_dir)  # as `python -m core api`: own engine, or the dashboard's (hand-off)
    try:
        check_token(backend, token)  # NotAuthenticated: the CLI prints it and exits 13, nothing served
        where = ("its own engine" if backend.kind == "engine"
                 else f"the engine of {backend.holder} (hand-off: it holds the embedded store)")
        print(f"ragdesk MCP server on stdio, using {where}", file=sys.stderr)
        serve_stdio(backend, token)
    finally:
        backend.close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    mcp = sub.add_parser("mcp", help="serve MCP on stdio (tools: list_knowledge_bases, search, ask) as the user "
                                     "of the API token in $RAGDESK_TOKEN or --token-file")
    mcp.add_argument("--token-file", metavar="PATH",
                     help="read the API token from this file (default: $RAGDESK_TOKEN; never on the command line)")
    mcp.set_defaults(handler=cmd_mcp)
