"""MCP over streamable HTTP at /mcp beside the REST API: the SDK's client lists the tools (derived
from the registry's routes), searches and asks with citations as the token's user; a request
without a token or with a wrong one is refused before its body is read; a plain user cannot
reach another user's private knowledge base; strict mode holds as through the engine."""

from __future__ import annotations

import json

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from core.api.registry import operations
from tests.fakes.llm_server import fake_llm_server, text
from tests.mcp.conftest import FACT_EN, FACT_ZH, FIXED_REPLY, OFF_TOPIC, PRIVATE_KB, http_client

TOOLS = {"list_knowledge_bases": "list_kbs", "search": "search", "ask": "ask_stream"}


def test_the_tools_are_the_registrys_routes(world, api):
    async def listed():
        async with http_client(api.url, world.alice_token) as mcp:
            return (await mcp.list_tools()).tools

    tools = {t.name: t for t in anyio.run(listed)}
    assert set(tools) == set(TOOLS)
    for name, route in TOOLS.items():
        op = operations()[route]
        assert tools[name].description == op.summary
        assert tools[name].input_schema == op.input.model_json_schema()  # the REST body, from the signature
    assert tools["search"].input_schema["required"] == ["query"]
    assert set(tools["ask"].input_schema["properties"]) >= {"question", "kbs", "mode"}
    assert "location" in json.dumps(tools["search"].output_schema)


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # the 2026 per-request era and the initialize handshake
def test_alice_lists_searches_and_asks_with_citations(world, api, mode):
    async def session():
        async with http_client(api.url, world.alice_token, mode=mode) as mcp:
            kbs = await mcp.call_tool("list_knowledge_bases", {})
            en = await mcp.call_tool("search", {"query": "How many days per week may employees work remotely?",
                                                "kbs": [PRIVATE_KB], "top_k": 3})
            zh = await mcp.call_tool("search", {"query": "一线城市住宿费每晚标准", "top_k": 3})
            answer = await mcp.call_tool("ask", {"question": "How many days per week may employees work remotely?",
                                                 "kbs": [PRIVATE_KB]})
            return mcp.protocol_version, kbs, en, zh, answer

    version, kbs, en, zh, answer = anyio.run(session)
    assert version in (MODERN_PROTOCOL_VERSIONS if mode == "auto" else HANDSHAKE_PROTOCOL_VERSIONS), version
    assert not kbs.is_error and [kb["name"] for kb in kbs.structured_content["result"]] == [PRIVATE_KB]
    assert json.loads(kbs.content[0].text) == kbs.structured_content  # the same JSON as text
    top = en.structured_content["hits"][0]
    assert FACT_EN in top["text"] and top["source_name"] == "handbook.md" and 0 < top["score"] <= 1
    assert "location" in top and top["file_id"] in world.file_ids
    assert FACT_ZH in zh.structured_content["hits"][0]["text"]
    assert zh.structured_content["hits"][0]["source_name"] == "travel-zh.md"
    facts = answer.structured_content
    assert not answer.is_error and FACT_EN in facts["text"] and facts["from_kb"] is True
    assert facts["citations"][0]["source_name"] == "handbook.md" and facts["citations"][0]["score"] > 0
    assert {"mode", "notices", "citations", "text", "from_kb"} <= set(facts)


def test_bob_cannot_read_alices_private_knowledge_base(world, api):
    async def session():
        async with http_client(api.url, world.bob_token) as mcp:
            return (await mcp.call_tool("list_knowledge_bases", {}),
                    await mcp.call_tool("search", {"query": "remote work days", "kbs": [PRIVATE_KB]}),
                    await mcp.call_tool("search", {"query": "remote work days", "kbs": [world.kb_id]}),
                    await mcp.call_tool("ask", {"question": "How many days may I work remotely?", "kbs": [PRIVATE_KB]}),
                    await mcp.call_tool("search", {"query": "three days per week remote"}),
                    await mcp.call_tool("search", {"query": "remote", "top_k": 0, "colour": "red"}))

    kbs, by_name, by_id, asked, everywhere, invalid = anyio.run(session)
    assert invalid.is_error and invalid.content[0].text.startswith("invalid_input: top_k:"), invalid  # as REST's 422
    assert kbs.structured_content == {"result": []}
    for refused in (by_name, by_id, asked):
        assert refused.is_error and refused.content[0].text.startswith("not_found:"), refused
        assert FACT_EN not in refused.content[0].text
    assert not everywhere.is_error and everywhere.structured_content["hits"] == []  # nothing of alice's leaks


def _post(url: str, headers: dict) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "list_knowledge_bases", "arguments": {}}}
    return httpx.post(f"{url}/mcp", json=body, headers={"Accept": "application/json, text/event-stream", **headers},
                      timeout=30, trust_env=False)


def test_no_token_or_a_wrong_one_is_refused(world, api):
    for headers in ({}, {"Authorization": "Bearer rd_" + "w" * 43}, {"Authorization": f"Basic {world.alice_token}"}):
        reply = _post(api.url, headers)
        assert reply.status_code == 401, (headers, reply.text)
        assert reply.json()["error"]["code"] == "not_authenticated" and reply.headers["www-authenticate"] == "Bearer"

    statuses: list[int] = []

    async def with_wrong_token():
        async def seen(response):
            statuses.append(response.status_code)

        async with httpx2.AsyncClient(headers={"Authorization": "Bearer rd_" + "x" * 43}, trust_env=False,
                                      event_hooks={"response": [seen]}) as http:
            async with Client(streamable_http_client(f"{api.url}/mcp", http_client=http)) as mcp:
                await mcp.list_tools()

    with pytest.raises(Exception) as refused:  # the SDK's client gets no further than its first request
        anyio.run(with_wrong_token)
    assert "MCPError" in repr(refused.value)
    assert statuses and set(statuses) == {401}, statuses


def test_a_wrong_token_is_refused_before_the_body_is_read(world, api):
    """A client announcing a body (under the 1 MiB cap) with a wrong token gets its 401 without sending it."""
    import socket
    from urllib.parse import urlsplit

    host, port = urlsplit(api.url).hostname, urlsplit(api.url).port
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer rd_" + b"y" * 43
                  + b"\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n")
        head = s.recv(4096).decode("latin-1")  # answered with no byte of the body sent
    assert head.startswith("HTTP/1.1 401"), head


def test_strict_mode_holds_through_mcp(world, api):
    """With strict mode on, alice (a plain user) asking for a normal answer gets a strict one; a question
    without a hit gets the fixed reply and no model is called; the admin's normal answer does call it."""
    with fake_llm_server([text("from the model's own knowledge")] * 4) as llm:
        world.engine.save_settings(world.admin, {
            "strict": {"rag_strict_mode": True, "rag_strict_no_hit_reply": FIXED_REPLY},
            "llm": {"provider": "openai", "base_url": llm.openai_url, "api_key": "sk-test", "model": "fake-model"}})

        async def session(token: str, question: str):
            async with http_client(api.url, token) as mcp:
                return (await mcp.call_tool("ask", {"question": question, "mode": "normal"})).structured_content

        refused = anyio.run(session, world.alice_token, OFF_TOPIC)
        assert refused["text"] == FIXED_REPLY and refused["mode"] == "strict"
        assert refused["llm_called"] is False and refused["from_kb"] is False and refused["citations"] == []
        assert any("strict mode is on" in n for n in refused["notices"])
        assert llm.chat_count == 0
        normal = anyio.run(session, world.admin_token, "How many days per week may employees work remotely?")
        assert normal["mode"] == "normal" and normal["llm_called"] is True and llm.chat_count >= 1


def test_a_search_hit_says_where_it_is_in_the_file(world, api):
    """A passage running from page 1 onto page 2 of a PDF is located "pp. 1–2", as a citation is."""
    from core.ingest.service import Upload
    from tests.parsers.pdf_maker import Page, make_pdf

    pdf = make_pdf([Page().text(72, 80, "Visitor badges policy: every visitor badge is collected at reception and"),
                    Page().text(72, 80, "returned to the security desk before the visitor leaves the building.")])
    world.engine.create_kb(world.alice, "visitors")
    assert world.engine.ingest(world.alice, "visitors", [Upload("visitors.pdf", pdf)])[0].status == "indexed"

    async def session():
        async with http_client(api.url, world.alice_token) as mcp:
            return await mcp.call_tool("search", {"query": "Where are visitor badges returned?", "kbs": ["visitors"]})

    hit = anyio.run(session).structured_content["hits"][0]
    assert hit["source_name"] == "visitors.pdf" and hit["location"] == "pp. 1–2", hit
