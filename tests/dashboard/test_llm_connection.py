"""The LLM parts of the pages against a protocol-level fake OpenAI/Ollama server: the settings
test button (ok and down), the Ollama context warning, a streamed model answer in the chat."""

from __future__ import annotations

import socket

from core.ingest.service import Upload
from tests.dashboard.conftest import goto, new_app, sign_up, texts
from tests.dashboard.test_knowledge_bases import POLICY
from tests.fakes import fake_llm_server, text


def _admin(engine):
    at = sign_up(new_app(), "alice")
    return at, engine.actor_for(at.session_state["user_id"])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_button_reports_success_and_failure(engine):
    at, actor = _admin(engine)
    goto(at, "settings")
    at.button(key="test_llm").click().run()
    assert "No language model configured" in texts(at)
    with fake_llm_server(models=["qwen-test"]) as server:
        engine.save_settings(actor, {"llm": {"provider": "openai", "base_url": server.openai_url, "model": "qwen-test"}})
        at.run()
        at.button(key="test_llm").click().run()
        assert "Connected to" in texts(at) and not at.exception
    engine.save_settings(actor, {"llm": {"base_url": f"http://127.0.0.1:{_closed_port()}/v1"}})
    at.run()
    at.button(key="test_llm").click().run()
    assert not at.exception
    assert at.error and "127.0.0.1" in at.error[0].value


def test_ollama_default_context_length_warns_on_settings_and_chat(engine):
    at, actor = _admin(engine)
    engine.save_settings(actor, {"llm": {"provider": "ollama", "base_url": "http://127.0.0.1:11434", "model": "qwen",
                                         "context_length": 2048}})
    warning = engine.context_warning()
    assert warning
    goto(at, "settings")
    assert warning in [w.value for w in at.warning]
    goto(at, "chat")
    assert warning in [w.value for w in at.warning]
    engine.save_settings(actor, {"llm": {"context_length": 8192}})
    at.run()
    assert warning not in [w.value for w in at.warning]


def test_chat_streams_the_model_answer_in_strict_mode(engine):
    at, actor = _admin(engine)
    kb = engine.create_kb(actor, "差旅")
    engine.ingest(actor, kb.id, [Upload("差旅.md", POLICY.encode())])
    with fake_llm_server(models=["qwen-test"]) as server:
        server.add(text("乘坐飞机须提前三天申请 [1]。"))
        engine.save_settings(actor, {"llm": {"provider": "openai", "base_url": server.openai_url, "model": "qwen-test"},
                                     "strict": {"rag_strict_mode": True, "rag_strict_min_similarity": 0.3}})
        goto(at, "chat")
        at.chat_input[0].set_value("出差乘坐飞机要提前几天申请？").run()
        assert server.chat_count == 1
        last = at.chat_message[-1]
        body = "\n".join(str(m.value) for m in last.markdown)
        assert "乘坐飞机须提前三天申请 [1]。" in body and "model called" in body
        assert [e.label for e in at.expander if e.label.startswith("[1]")]
        at.chat_input[0].set_value("今天天气怎么样？").run()
        assert server.chat_count == 1  # strict no-hit: the model is not asked
