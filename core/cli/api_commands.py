"""``python -m core api``: the HTTP API (REST + OpenAI-compatible), see core/api/."""

from __future__ import annotations

import argparse
import ipaddress
import sys


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_api(args: argparse.Namespace) -> int:
    import uvicorn

    from core.api.app import create_app
    from core.api.backend import open_backend

    backend = open_backend(args.data_dir)
    try:
        where = ("its own engine" if backend.kind == "engine"
                 else "the running dashboard's engine (hand-off: the dashboard holds the embedded store)")
        print(f"ragdesk API on http://{args.host}:{args.port} (docs: /docs), using {where}", file=sys.stderr)
        if not _loopback(args.host):
            print("warning: plain HTTP beyond this machine: put a TLS proxy in front (tokens travel in headers)",
                  file=sys.stderr)
        uvicorn.run(create_app(backend), host=args.host, port=args.port, log_level="warning" if not args.verbose else "info",
                    server_header=False)
    finally:
        backend.close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    api = sub.add_parser("api", help="serve the HTTP API (REST under /api/v1, OpenAI-compatible under /v1)")
    api.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    api.add_argument("--port", type=int, default=8600, help="port (default 8600)")
    api.set_defaults(handler=cmd_api)
