"""Normal mode: intent gate, low-similarity actions, template placement, budget, tools, errors."""

from __future__ import annotations

import socket

from core.db.models import Message
from core.settings.model import DEFAULT_RAG_TEMPLATE
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.fakes import http_error, text, tool_call

IN_SCOPE = "一线城市住宿费每晚不超过多少？"
OFF_TOPIC = "今天天气怎么样？"


def test_greetings_skip_retrieval(engine, server):
    use_openai(engine, server)
    server.add(text("你好！"), text("Hi!"))
    for question in ("你好", "hi"):
        answer = engine.ask(ADMIN, question, temporary=True)
        kinds = [e.kind for e in answer.events]
        assert "retrieval_started" not in kinds and answer.retrieved == [] and answer.llm_called
    for body, question in zip(server.chat_bodies(), ("你好", "hi")):
        assert body["messages"][-1] == {"role": "user", "content": question}
        assert "<context>" not in json_text(body)


def test_a_real_question_is_retrieved_for_and_the_template_goes_in_the_user_message(engine, server):
    use_openai(engine, server)
    server.add(text("不超过六百元。[1]"))
    answer = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    assert answer.hit and answer.from_kb and [c.n for c in answer.citations] == [1]
    system, user = server.chat_bodies()[0]["messages"]
    assert system["role"] == "system" and "<context>" not in system["content"]
    expected_head = DEFAULT_RAG_TEMPLATE.split("{{CONTEXT}}")[0]
    assert user["content"].startswith(expected_head)
    assert "[1] travel.md\n" in user["content"] and user["content"].endswith(f"Query: {IN_SCOPE}")


def test_rag_system_context_puts_the_context_in_the_system_message(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"rag_system_context": True, "rag_template": "资料：\n{{CONTEXT}}\n问题：{{QUERY}}"})
    server.add(text("六百元 [1]"))
    engine.ask(ADMIN, IN_SCOPE, temporary=True)
    system, user = server.chat_bodies()[0]["messages"]
    assert "资料：\n[1] travel.md" in system["content"] and f"问题：{IN_SCOPE}" in system["content"]
    assert user == {"role": "user", "content": IN_SCOPE}


def test_below_the_threshold_answers_from_general_knowledge_with_the_marker(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"not_from_kb_marker": "【非知识库内容】"})
    server.add(text("天气晴。"))
    answer = engine.ask(ADMIN, OFF_TOPIC, temporary=True)
    assert not answer.hit and not answer.from_kb and answer.llm_called
    assert answer.text == "【非知识库内容】\n\n天气晴。" and "【非知识库内容】" not in answer.notices  # said once
    assert answer.retrieved and all(not r["passed"] for r in answer.retrieved)
    assert server.chat_bodies()[0]["messages"][-1] == {"role": "user", "content": OFF_TOPIC}


def test_the_built_in_marker_is_said_once_in_the_question_language(engine, server):
    """Issue 36: the marker was the answer's first line and a notice beside it, in English under
    a Chinese answer."""
    use_openai(engine, server)
    server.add(text("天气晴。"), text("Sunny."))
    zh = engine.ask(ADMIN, OFF_TOPIC, temporary=True)
    en = engine.ask(ADMIN, "What is the weather like on Mars today?", temporary=True)
    assert zh.text == "以下内容并非来自知识库。\n\n天气晴。" and not zh.from_kb
    assert en.text == "Not from the knowledge base.\n\nSunny." and not en.from_kb
    assert not [n for n in zh.notices + en.notices if "知识库" in n or "knowledge base" in n.lower()]


def test_flag_for_human_calls_no_model(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"low_similarity_action": "flag_for_human"})
    chat = engine.create_chat(ADMIN, "x")
    answer = engine.ask(ADMIN, OFF_TOPIC, chat_id=chat.id)
    assert answer.flagged and not answer.llm_called and server.request_count == 0
    stored = engine.chat_messages(ADMIN, chat.id)
    assert [m.role for m in stored] == ["user", "assistant"] and stored[1].flagged


def test_extractive_without_a_hit_says_nothing_was_found(engine):
    answer = engine.ask(ADMIN, OFF_TOPIC, temporary=True)
    assert not answer.hit and not answer.llm_called and "Nothing relevant" not in answer.text
    assert "没有找到相关内容" in answer.text and not answer.from_kb


def test_budget_drops_the_least_relevant_passages_first_and_says_so(engine, server):
    use_openai(engine, server, context_length=600)
    configure(engine, retrieval={"rag_max_results": 6, "rag_min_similarity": 0.0})
    server.add(text("六百元 [1]"))
    answer = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    passed = sorted((r for r in answer.retrieved if r["passed"]), key=lambda r: -r["score"])
    assert len(passed) >= 3
    user = server.chat_bodies()[0]["messages"][-1]["content"]
    sent = [r for r in passed if r["text"].strip() in user]
    assert sent and len(sent) < len(passed)
    # What was sent is a prefix of the ranking: nothing more relevant was dropped for something less.
    assert sent == passed[: len(sent)]
    assert any("已裁剪" in n for n in answer.notices)  # in the question's language (issue 36)


def test_tool_loop_is_bounded_and_tool_results_are_cited(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": True, "file_context": False, "max_tool_rounds": 2})
    server.add(tool_call("query_knowledge_bases", {"query": "一线城市住宿费"}),
               tool_call("query_knowledge_bases", {"query": "飞机 提前 申请"}),
               tool_call("search_chats", {"query": "住宿"}),  # past the limit: not run
               )
    answer = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    bodies = server.chat_bodies()
    assert len(bodies) == 3 and "tools" in bodies[0] and "tools" in bodies[1] and "tools" not in bodies[2]
    assert [m["role"] for m in bodies[0]["messages"]] == ["system", "user"]  # file context off: nothing injected
    tool_msgs = [m for m in bodies[2]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 2 and tool_msgs[0]["content"].startswith("[1] travel.md")
    assert [e.data["name"] for e in answer.events if e.kind == "tool_call"] == ["query_knowledge_bases"] * 2
    assert any("工具调用轮数用完" in n for n in answer.notices)  # in the question's language

    server.add(tool_call("query_knowledge_bases", {"query": "一线城市住宿费"}), text("每晚不超过六百元 [1]"))
    cited = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    assert [(c.n, c.source_name) for c in cited.citations] == [(1, "travel.md")]
    assert "六百元" in cited.citations[0].text


def test_no_file_processing_when_both_are_off(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": False, "file_context": False})
    server.add(text("ok"))
    answer = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    body = server.chat_bodies()[0]
    assert "tools" not in body and body["messages"][-1] == {"role": "user", "content": IN_SCOPE}
    assert answer.retrieved == []


def test_provider_down_is_a_clear_error_recorded_in_the_chat(engine):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens here
    configure(engine, llm={"provider": "openai", "base_url": f"http://127.0.0.1:{port}/v1", "api_key": "k",
                           "model": "m", "timeout_seconds": 5})
    chat = engine.create_chat(ADMIN, "down")
    events = []
    answer = engine.ask(ADMIN, IN_SCOPE, chat_id=chat.id, on_event=events.append)
    assert answer.error and f"127.0.0.1:{port}" in answer.error and "Traceback" not in answer.error
    assert [e.kind for e in events][-2:] == ["error", "done"]
    stored = engine.chat_messages(ADMIN, chat.id)[-1]
    assert stored.role == "assistant" and stored.error == answer.error and stored.content == answer.error


def test_provider_refusal_is_a_clear_error(engine, server):
    use_openai(engine, server)
    server.add(http_error(429, "Rate limit reached for requests"))
    answer = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    assert "rate limiting" in answer.error and "429" in answer.error and answer.text == ""
    assert answer.llm_called and answer.events[-2].kind == "error"


def test_history_is_sent_in_normal_mode_and_messages_are_stored(engine, server):
    use_openai(engine, server)
    # The follow-up's search query is written by the model first (core/answering/followup.py).
    server.add(text("六百元 [1]"), text('{"query": "其他城市住宿费每晚不超过多少"}'), text("四百元 [1]"))
    first = engine.ask(ADMIN, IN_SCOPE)
    engine.ask(ADMIN, "其他城市呢？", chat_id=first.chat_id)
    roles = [m["role"] for m in server.chat_bodies()[2]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    stored = engine.chat_messages(ADMIN, first.chat_id)
    assert [m.role for m in stored] == ["user", "assistant", "user", "assistant"]
    assert isinstance(stored[1], Message) and stored[1].mode == "normal" and stored[1].citations[0]["n"] == 1
    assert stored[1].retrieved and stored[1].timings["total_ms"] > 0


def json_text(body) -> str:
    import json

    return json.dumps(body, ensure_ascii=False)
