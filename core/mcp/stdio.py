"""MCP over stdio (``python -m core mcp``): a desktop assistant starts this process and talks
JSON-RPC on its standard input and output.

The process acts for one user: the API token in ``RAGDESK_TOKEN`` or in a file
(``--token-file``), never on the command line, where every user of the machine could read it
(``ps``). The token is checked before anything is served: without a valid one the process
refuses to start. Each tool call checks it again next to the engine (``registry.invoke``), so a
token revoked while the assistant runs stops working at once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

from core.errors import InvalidInput, NotAuthenticated
from core.mcp.server import build_server

TOKEN_ENV = "RAGDESK_TOKEN"
CLIENT = "mcp-stdio"  # the "address" the engine's wrong-token throttle counts this process under


def read_token(token_file: str | None, environ: dict[str, str] | None = None) -> str:
    """The API token this process acts with: from ``token_file`` when given, else ``$RAGDESK_TOKEN``."""
    if token_file:
        path = Path(token_file).expanduser()
        try:
            token = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise InvalidInput(f"cannot read the token file {path}: {exc.strerror or exc}") from None
        if not token:
            raise NotAuthenticated(f"the token file {path} is empty")
        return token
    token = (os.environ if environ is None else environ).get(TOKEN_ENV, "").strip()
    if not token:
        raise NotAuthenticated(f"no API token: set {TOKEN_ENV} (or pass --token-file PATH); make one with "
                               "`python -m core tokens create --user NAME`")
    return token


def check_token(backend: Any, token: str) -> None:
    """NotAuthenticated (or ApiTokenLocked) unless ``token`` is a live API token."""
    backend.call("limits", {}, token, CLIENT)


def serve_stdio(backend: Any, token: str) -> None:
    """Serve MCP on this process's stdin/stdout until the client closes them."""
    server = build_server(backend, lambda ctx: (token, CLIENT))

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
