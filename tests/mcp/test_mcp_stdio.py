"""``python -m core mcp``: MCP over stdio, spawned by the SDK's own stdio client as a desktop
assistant would, acting as the user of the API token in ``RAGDESK_TOKEN`` (or ``--token-file``).
With the dashboard holding the embedded store it works through the hand-off, as ``python -m core
api`` does; alone, it opens its own engine. Without a valid token it refuses to start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from core.config import RuntimeConfig
from core.engine import Engine
from core.mcp.stdio import TOKEN_ENV
from tests.api.conftest import build_world
from tests.conftest import REPO_ROOT
from tests.fakes.llm_server import fake_llm_server, text
from tests.mcp.conftest import FACT_EN, FACT_ZH, FIXED_REPLY, OFF_TOPIC, PRIVATE_KB, clean_environ

REMOTE = "How many days per week may employees work remotely?"


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    return {"PYTHONPATH": str(REPO_ROOT), "RAGDESK_DATA_DIR": str(data_dir), "RAGDESK_EMBEDDING__PROVIDER": "local",
            "RAGDESK_EMBEDDING__MODEL": "hash-64", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


async def _session(env: dict, errlog, *calls: tuple[str, dict], args: tuple[str, ...] = ()):
    params = StdioServerParameters(command=sys.executable, args=["-m", "core", "mcp", *args], env=env, cwd=REPO_ROOT)
    with anyio.fail_after(120):
        async with Client(stdio_client(params, errlog=errlog)) as mcp:
            tools = [t.name for t in (await mcp.list_tools()).tools]
            return tools, [await mcp.call_tool(name, arguments) for name, arguments in calls]


def test_through_the_hand_off_alice_lists_searches_and_asks_and_strict_mode_holds(dashboard, data_dir, tmp_path):
    world = dashboard
    with fake_llm_server([text("from the model's own knowledge")] * 4) as llm:
        world.engine.save_settings(world.admin, {
            "strict": {"rag_strict_mode": True, "rag_strict_no_hit_reply": FIXED_REPLY},
            "llm": {"provider": "openai", "base_url": llm.openai_url, "api_key": "sk-test", "model": "fake-model"}})
        with open(tmp_path / "stderr.txt", "w+") as errlog:
            tools, (kbs, en, zh, refused) = anyio.run(
                _session, _env(data_dir, **{TOKEN_ENV: world.alice_token}), errlog,
                ("list_knowledge_bases", {}),
                ("search", {"query": REMOTE, "kbs": [PRIVATE_KB], "top_k": 3}),
                ("search", {"query": "一线城市住宿费每晚标准", "kbs": [world.kb_id]}),
                ("ask", {"question": OFF_TOPIC, "mode": "normal"}))
            errlog.seek(0)
            said = errlog.read()
        assert llm.chat_count == 0  # the strict refusal called no model
    assert "hand-off" in said, said  # it did not open the store the dashboard holds
    assert tools == ["list_knowledge_bases", "search", "ask"]
    assert [kb["name"] for kb in kbs.structured_content["result"]] == [PRIVATE_KB]
    hit = en.structured_content["hits"][0]
    assert FACT_EN in hit["text"] and hit["source_name"] == "handbook.md" and hit["score"] > 0 and "location" in hit
    assert FACT_ZH in zh.structured_content["hits"][0]["text"]
    facts = refused.structured_content
    assert facts["text"] == FIXED_REPLY and facts["mode"] == "strict" and facts["llm_called"] is False
    assert facts["from_kb"] is False and facts["citations"] == []


def test_alone_it_opens_its_own_engine_and_reads_the_token_from_a_file(data_dir, monkeypatch, tmp_path):
    clean_environ(monkeypatch)
    engine = Engine(RuntimeConfig.from_env(data_dir))
    world = build_world(engine)
    engine.save_settings(world.admin, {"embedding": {"provider": "local", "model": "hash-64"}})
    engine.close()  # nobody holds the store: the MCP process opens it
    token_file = tmp_path / "token"
    token_file.write_text(world.bob_token + "\n")
    with open(tmp_path / "stderr.txt", "w+") as errlog:
        tools, (kbs, search, ask) = anyio.run(
            lambda: _session(_env(data_dir), errlog, ("list_knowledge_bases", {}),
                             ("search", {"query": REMOTE, "kbs": [PRIVATE_KB]}),
                             ("ask", {"question": REMOTE, "kbs": [world.kb_id]}),
                             args=("--token-file", str(token_file))))
        errlog.seek(0)
        said = errlog.read()
    assert "its own engine" in said, said
    assert kbs.structured_content == {"result": []}  # bob: alice's private knowledge base is not his to read
    for refused in (search, ask):
        assert refused.is_error and refused.content[0].text.startswith("not_found:")
        assert FACT_EN not in refused.content[0].text


def _start(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "mcp", *args], cwd=REPO_ROOT,
                          env={**os.environ, **env}, input="", capture_output=True, text=True, timeout=120)


def test_without_a_valid_token_it_refuses_to_start(dashboard, data_dir, tmp_path):
    missing = _start(_env(data_dir))
    assert missing.returncode == 13 and "RAGDESK_TOKEN" in missing.stderr and missing.stdout == ""
    wrong = _start(_env(data_dir, **{TOKEN_ENV: "rd_" + "w" * 43}))
    assert wrong.returncode == 13 and "token" in wrong.stderr.lower() and wrong.stdout == "", wrong.stderr
    empty = tmp_path / "empty"
    empty.write_text("\n")
    from_file = _start(_env(data_dir, **{TOKEN_ENV: dashboard.alice_token}), "--token-file", str(empty))
    assert from_file.returncode == 13 and "empty" in from_file.stderr  # the file given wins over the environment
    on_command_line = _start(_env(data_dir), "--token", dashboard.alice_token)
    assert on_command_line.returncode == 2  # no such option: a token in argv would show in `ps`
