"""Events as they happen, the LLM connection test, strict-mode tool calls."""

from __future__ import annotations

import pytest

from core.errors import LLMError, PermissionDenied
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.fakes import text, tool_call


def test_events_arrive_in_order_while_the_answer_streams(engine, server):
    use_openai(engine, server)
    server.add(text("一线城市每晚不超过六百元。[1]", chunk_chars=3))
    seen = []
    answer = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", temporary=True,
                        on_event=lambda e: seen.append((e.kind, len(seen))))
    kinds = [k for k, _ in seen]
    assert kinds[:3] == ["retrieval_started", "sources_found", "generating"] and kinds[-1] == "done"
    deltas = [e.message for e in answer.events if e.kind == "text"]
    assert len(deltas) > 1 and "".join(deltas) == answer.text
    assert [e.kind for e in answer.events] == kinds  # the callback saw exactly what the answer keeps
    t = answer.timings_ms
    assert 0 <= t["retrieval_ms"] and t["to_model_ms"] <= t["first_token_ms"] <= t["total_ms"]
    passed = [r for r in answer.retrieved if r["passed"]]
    assert next(e for e in answer.events if e.kind == "sources_found").data["n"] == len(passed) > 0


def test_llm_connection_test(engine, server):
    use_openai(engine, server)
    assert "fake-model" in engine.test_llm(ADMIN)
    engine.sign_up("first-admin", "password-admin")  # the first account of an installation is its admin
    user = engine.actor_for(engine.sign_up("carol", "password-carol").id)
    with pytest.raises(PermissionDenied):
        engine.test_llm(user)
    configure(engine, llm={"base_url": "http://127.0.0.1:9/v1", "timeout_seconds": 2})
    with pytest.raises(LLMError):
        engine.test_llm(ADMIN)


def test_a_strict_tool_call_searches_with_the_strict_threshold(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": True})
    server.add(tool_call("query_knowledge_bases", {"query": "今天天气怎么样"}),
               tool_call("search_chats", {"query": "住宿"}),
               text("知识库中未收录。"))
    answer = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", temporary=True)
    bodies = server.chat_bodies()
    first_tool = [m for m in bodies[1]["messages"] if m["role"] == "tool"][0]
    assert first_tool["content"].startswith("No passage")  # the weather query scored below the strict threshold
    second_tool = [m for m in bodies[2]["messages"] if m["role"] == "tool"][-1]
    assert second_tool["content"] == "error: tool 'search_chats' is not available"
    assert [c.n for c in answer.citations] == [1]


def test_tool_loop_over_ollama(engine, server):
    from tests.answering.conftest import use_ollama

    use_ollama(engine, server)
    configure(engine, answering={"builtin_tools": True, "file_context": False})
    server.add(tool_call("view_knowledge_file", {"file": "travel.md"}), text("第四条：提前三天申请。[1]"))
    answer = engine.ask(ADMIN, "出差乘坐飞机要提前几天申请？", temporary=True)
    first, second = server.chat_bodies()
    assert {t["function"]["name"] for t in first["tools"]} == {"query_knowledge_bases", "view_knowledge_file", "search_chats"}
    tool = second["messages"][-1]
    assert tool["role"] == "tool" and tool["tool_name"] == "view_knowledge_file"
    assert tool["content"].startswith("[1] travel.md\n") and "第四条" in tool["content"]
    assert [(c.n, c.source_name) for c in answer.citations] == [(1, "travel.md")] and not answer.error
