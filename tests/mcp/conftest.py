"""The MCP server driven by the ``mcp`` SDK's own client, over a real engine: the API tests' world
(an admin, alice with a private knowledge base holding an English and a Chinese document, bob)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from core.config import RuntimeConfig
from core.engine import Engine
from core.mcp.stdio import TOKEN_ENV
from tests.api.conftest import FACT_EN, FACT_ZH, PRIVATE_KB, api, build_world, world  # noqa: F401 (fixtures)

OFF_TOPIC = "What is the boiling point of liquid nitrogen on Neptune?"
FIXED_REPLY = "The knowledge base does not hold this; no answer is given."


@asynccontextmanager
async def http_client(url: str, token: str | None, mode: str = "auto") -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60, trust_env=False) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client:
            yield client


def clean_environ(monkeypatch) -> None:
    for name in ("DATABASE_URL", "QDRANT_URL", TOKEN_ENV):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def dashboard(data_dir, monkeypatch):
    """The dashboard's engine: it holds the embedded store and serves the hand-off."""
    clean_environ(monkeypatch)
    monkeypatch.setenv("RAGDESK_EMBEDDING__MODEL", "hash-64")
    engine = Engine(RuntimeConfig.from_env(data_dir), serve_handoff=True)
    yield build_world(engine)
    engine.close()
