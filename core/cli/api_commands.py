"""``python -m core api``: the HTTP API (REST + OpenAI-compatible), see core/api/."""

from __future__ import annotations

import argparse
import ipaddress
import signal
import sys


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(0)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_api(args: argparse.Namespace) -> int:
    from core.api.app import create_app
    from core.api.backend import open_backend
    from core.api.serve import make_server
    from core.handoff.holder import set_role

    # SIGTERM ends the process through Python (SystemExit), so the engine is closed below — its
    # running jobs put back in the queue. uvicorn replaces this handler while it serves and raises
    # the signal again once it has shut down; without a handler of ours, the hand-off's (which
    # ends the process at once) would run instead, and the engine would never be closed.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    set_role("the API server", "python -m core api")  # what a CLI handing off to it is told
    backend = open_backend(args.data_dir)
    try:
        where = ("its own engine" if backend.kind == "engine"
                 else f"the engine of {backend.holder} (hand-off: it holds the embedded store)")
        print(f"ragdesk API on http://{args.host}:{args.port} (docs: /docs), using {where}", file=sys.stderr)
        if not _loopback(args.host):
            print("warning: plain HTTP beyond this machine: put a TLS proxy in front (tokens travel in headers)",
                  file=sys.stderr)
        # SIGTERM: waiting uploads answer at once, requests still open after GRACE_SECONDS are
        # cut (core/api/serve.py), then the engine's running jobs go back to the queue
        make_server(create_app(backend), host=args.host, port=args.port,
                    log_level="warning" if not args.verbose else "info").run()
    finally:
        backend.close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    api = sub.add_parser("api", help="serve the HTTP API (REST under /api/v1, OpenAI-compatible under /v1)")
    api.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    api.add_argument("--port", type=int, default=8600, help="port (default 8600)")
    api.set_defaults(handler=cmd_api)
