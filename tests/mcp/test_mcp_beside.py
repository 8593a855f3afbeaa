"""/mcp wherever the API runs: served by the dashboard's process on a thread (uvicorn without a
lifespan), and by a ``python -m core api`` that reaches the dashboard's engine through the
hand-off (the token checked there)."""

from __future__ import annotations

import anyio

from core.api.app import create_app
from core.api.backend import HandoffBackend, open_backend
from core.api.beside import serve_beside
from tests.api.conftest import LiveServer
from tests.mcp.conftest import FACT_EN, PRIVATE_KB, http_client

REMOTE = "How many days per week may employees work remotely?"


async def _ask_and_search(url: str, token: str):
    async with http_client(url, token) as mcp:
        return (await mcp.call_tool("ask", {"question": REMOTE, "kbs": [PRIVATE_KB]}),
                await mcp.call_tool("search", {"query": REMOTE}))


def test_beside_the_dashboard(world):
    served = serve_beside(world.engine, port=0)  # lifespan="off": MCP must not need the app's lifespan
    try:
        answer, search = anyio.run(_ask_and_search, f"http://127.0.0.1:{served.port}", world.alice_token)
    finally:
        served.stop()
    assert FACT_EN in answer.structured_content["text"] and answer.structured_content["citations"]
    assert FACT_EN in search.structured_content["hits"][0]["text"]


def test_through_the_hand_off(dashboard, data_dir):
    backend = open_backend(data_dir)
    assert isinstance(backend, HandoffBackend)  # the dashboard holds the store: the API did not open it
    server = LiveServer(create_app(backend))
    try:
        answer, search = anyio.run(_ask_and_search, server.url, dashboard.alice_token)
        refused, nothing = anyio.run(_ask_and_search, server.url, dashboard.bob_token)
    finally:
        server.stop()
        backend.close()
    assert FACT_EN in answer.structured_content["text"] and FACT_EN in search.structured_content["hits"][0]["text"]
    assert refused.is_error and refused.content[0].text.startswith("not_found:")
    assert nothing.structured_content["hits"] == []
