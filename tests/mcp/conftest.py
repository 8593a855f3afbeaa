"""The MCP server driven by the ``mcp`` SDK's own client, over a real engine: the API tests' world
(an admin, alice with a private knowledge base holding an English and a Chinese document, bob)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.api.conftest import FACT_EN, FACT_ZH, PRIVATE_KB, api, world  # noqa: F401 (fixtures)

OFF_TOPIC = "What is the boiling point of liquid nitrogen on Neptune?"
FIXED_REPLY = "The knowledge base does not hold this; no answer is given."


@asynccontextmanager
async def http_client(url: str, token: str | None, mode: str = "auto") -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60, trust_env=False) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client:
            yield client
