"""Message conversion, validation, token estimates and the factory."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput, InvalidSettings
from core.llm import ChatModel, ExtractiveAnswerer, make_chat_model
from core.llm.base import ChatMessage, ToolCall, approx_token_count, server_label
from core.llm.ollama_chat import OllamaChatModel
from core.llm.openai_chat import OpenAIChatModel
from core.settings.model import LLMSettings
from tests.fakes import fake_llm_server, text


def test_messages_convert_to_each_wire_format():
    call = ToolCall("call_1", "view_knowledge_file", {"file_id": "文件-1"})
    assistant = ChatMessage("assistant", "", tool_calls=[call])
    assert assistant.to_openai()["tool_calls"][0]["function"]["arguments"] == '{"file_id": "文件-1"}'
    assert assistant.to_ollama() == {"role": "assistant", "content": "",
                                     "tool_calls": [{"function": {"name": "view_knowledge_file", "arguments": {"file_id": "文件-1"}}}]}
    named = ChatMessage("user", "hi", name="alice")
    assert named.to_openai() == {"role": "user", "content": "hi", "name": "alice"}
    assert named.to_ollama() == {"role": "user", "content": "hi"}


def test_invalid_messages_are_refused():
    with pytest.raises(InvalidInput, match="unknown chat message role 'bot'"):
        ChatMessage("bot", "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="tool_call_id"):
        ChatMessage("tool", "result")
    with pytest.raises(InvalidInput, match="only assistant"):
        ChatMessage("user", "x", tool_calls=[ToolCall("c", "t", {})])


def test_token_estimate_counts_cjk_per_character():
    assert approx_token_count("员工每年享有带薪年假五天。") == 13
    assert approx_token_count("a" * 400) == 100
    assert approx_token_count("年假 annual leave") == 2 + 4  # 2 CJK + ceil(14/4)


def test_server_label_hides_credentials_and_paths():
    assert server_label("http://user:pass@10.0.0.5:8000/v1") == "10.0.0.5:8000"
    assert server_label("https://api.deepseek.com/v1") == "api.deepseek.com"
    assert server_label("localhost:11434") == "localhost:11434"


def test_factory_builds_each_provider():
    default = make_chat_model(LLMSettings())
    assert isinstance(default, ExtractiveAnswerer) and isinstance(default, ChatModel)
    with fake_llm_server([text("来自 openai"), text("来自 ollama")]) as srv:
        oa = make_chat_model(LLMSettings(provider="openai", base_url=srv.openai_url, model="fake-model", context_length=32768))
        ol = make_chat_model(LLMSettings(provider="ollama", base_url=srv.ollama_url, model="fake-model", temperature=0.5))
        assert isinstance(oa, OpenAIChatModel) and isinstance(ol, OllamaChatModel)
        assert isinstance(oa, ChatModel) and isinstance(ol, ChatModel)
        assert oa.context_length == 32768 and oa.id == "openai:fake-model"
        assert [e for e in oa.stream([ChatMessage("user", "hi")])][0].text.startswith("来自")
        list(ol.stream([ChatMessage("user", "hi")]))
    assert srv.bodies("/api/chat")[0]["options"] == {"num_ctx": 8192, "temperature": 0.5}


def test_factory_refuses_incomplete_settings():
    with pytest.raises(InvalidSettings, match="needs a model name"):
        make_chat_model(LLMSettings(provider="ollama"))
    with pytest.raises(InvalidSettings, match="needs an API key"):
        make_chat_model(LLMSettings(provider="openai", model="gpt-4o-mini"))


def test_the_retrieved_attachment_never_goes_over_the_wire():
    from core.llm.base import Passage, RetrievedContext

    context = RetrievedContext("年假有几天？", [Passage(1, "第十二条 年休假五天。", "手册")], "知识库中未收录")
    msg = ChatMessage("system", "资料：[1] 第十二条 年休假五天。", retrieved=context)
    assert msg.to_openai() == {"role": "system", "content": "资料：[1] 第十二条 年休假五天。"}
    assert msg.to_ollama() == {"role": "system", "content": "资料：[1] 第十二条 年休假五天。"}
    with fake_llm_server([text("五天。[1]")]) as srv:
        model = make_chat_model(LLMSettings(provider="openai", base_url=srv.openai_url, model="fake-model"))
        list(model.stream([msg, ChatMessage("user", "年假有几天？")]))
    assert srv.chat_bodies()[0]["messages"][0] == {"role": "system", "content": "资料：[1] 第十二条 年休假五天。"}
