"""Strict mode, exactly: the message list on the wire, tools stripped, zero requests on a
miss, the switch read on every message."""

from __future__ import annotations

from core.answering.replies import no_hit_reply
from core.settings.model import StrictModeSettings
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_ollama, use_openai
from tests.fakes import text

IN_SCOPE = "一线城市住宿费每晚不超过多少？"
OFF_TOPIC = "今天天气怎么样？"
NO_HIT = "知识库中暂未收录相关内容，我无法凭已有信息作答。"


def test_hit_sends_one_system_block_right_before_the_user_message_and_nothing_else(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": False})
    server.add(text("一线城市每晚不超过六百元。[1]"))
    answer = engine.ask(ADMIN, IN_SCOPE)
    assert answer.mode == "strict" and answer.hit and answer.llm_called and not answer.error
    body = server.chat_bodies()[0]
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    system, user = messages
    assert user["content"] == IN_SCOPE
    assert "第五条 一线城市住宿费每人每晚不超过六百元" in system["content"]
    assert system["content"].count("[1] travel.md") == 1
    assert "知识库中未收录" in system["content"] and "ONLY" in system["content"]
    assert "tools" not in body
    assert [c.n for c in answer.citations] == [1] and answer.citations[0].source_name == "travel.md"
    assert answer.text == "一线城市每晚不超过六百元。[1]"


def test_strict_offers_only_knowledge_base_search_and_no_history(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": True})
    chat = engine.create_chat(ADMIN, "t")
    server.add(text("普通回答"), text("严格回答 [1]"))
    engine.ask(ADMIN, "出差乘坐飞机要提前几天申请？", chat_id=chat.id, mode="normal")
    engine.ask(ADMIN, IN_SCOPE, chat_id=chat.id, mode="strict")
    normal_body, strict_body = server.chat_bodies()
    assert {t["function"]["name"] for t in normal_body["tools"]} == {"query_knowledge_bases", "view_knowledge_file", "search_chats"}
    assert [t["function"]["name"] for t in strict_body["tools"]] == ["query_knowledge_bases"]
    # The earlier turn of this chat is not sent in strict mode: one system block, one user message.
    assert [m["role"] for m in strict_body["messages"]] == ["system", "user"]
    assert strict_body["messages"][1]["content"] == IN_SCOPE


def test_no_hit_gives_the_fixed_reply_and_makes_zero_requests(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    events = []
    for question in (OFF_TOPIC, "hi", "a recipe for dumplings", "?"):
        answer = engine.ask(ADMIN, question, temporary=True, on_event=events.append)
        assert answer.text == no_hit_reply(StrictModeSettings(), question)  # in the question's language
        assert not answer.hit and not answer.llm_called and not answer.citations
    assert server.request_count == 0
    # Every message was retrieved for, greetings and one-character messages included.
    assert sum(e.kind == "retrieval_started" for e in events) == 4
    assert sum(e.kind == "no_hit" for e in events) == 4


def test_custom_no_hit_reply_and_threshold(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True, "rag_strict_no_hit_reply": "未收录。", "rag_strict_min_similarity": 0.99})
    answer = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    assert answer.text == "未收录。" and server.request_count == 0
    assert answer.retrieved and max(r["score"] for r in answer.retrieved) < 0.99


def test_the_switch_applies_on_the_next_message_without_a_new_engine(engine, server):
    use_openai(engine, server)
    server.add(text("It is probably sunny."))
    normal = engine.ask(ADMIN, OFF_TOPIC, temporary=True)
    assert normal.mode == "normal" and normal.llm_called and server.chat_count == 1
    configure(engine, strict={"rag_strict_mode": True})
    strict = engine.ask(ADMIN, OFF_TOPIC, temporary=True)
    assert strict.mode == "strict" and strict.text == NO_HIT and server.chat_count == 1
    configure(engine, strict={"rag_strict_mode": False})
    server.add(text("Sunny again."))
    back = engine.ask(ADMIN, OFF_TOPIC, temporary=True)
    assert back.mode == "normal" and back.llm_called and server.chat_count == 2


def test_ollama_gets_num_ctx_and_the_same_two_messages(engine, server):
    use_ollama(engine, server, context_length=16384)
    server.add(text("六百元 [1]"))
    answer = engine.ask(ADMIN, IN_SCOPE, mode="strict", temporary=True)
    assert answer.hit and answer.llm_called and not answer.error
    body = server.chat_bodies()[0]
    assert body["options"]["num_ctx"] == 16384
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"] == IN_SCOPE


def test_ollama_default_context_length_warning_is_a_notice(engine, server):
    use_ollama(engine, server, context_length=2048)
    server.add(text("六百元 [1]"))
    answer = engine.ask(ADMIN, IN_SCOPE, mode="strict", temporary=True)
    assert any("num_ctx" in n for n in answer.notices)
    assert any(e.kind == "notice" and "num_ctx" in e.message for e in answer.events)
    assert engine.context_warning() is not None
    use_ollama(engine, server, context_length=8192)
    assert engine.context_warning() is None


def test_extractive_answerer_in_strict_mode_quotes_and_cites(engine):
    configure(engine, strict={"rag_strict_mode": True})
    answer = engine.ask(ADMIN, IN_SCOPE, temporary=True)
    assert answer.hit and not answer.llm_called
    assert "六百元" in answer.text and "[1]" in answer.text
    assert answer.citations and answer.citations[0].source_name == "travel.md"
    miss = engine.ask(ADMIN, OFF_TOPIC, temporary=True)
    assert miss.text == NO_HIT
