"""The Ollama provider against the fake server, through the real ``ollama`` client."""

from __future__ import annotations

import json
import socket

import pytest

from core.errors import LLMError
from core.llm.base import ChatMessage, Done, TextDelta, ToolCall, ToolCallsReady, ToolSpec, collect
from core.llm.ollama_chat import OllamaChatModel, needs_context_warning
from tests.fakes import fake_llm_server, http_error, malformed, text, tool_call

SEARCH = ToolSpec("query_knowledge_bases", "Search the knowledge bases.",
                  {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})


def model_for(server, **kw) -> OllamaChatModel:
    return OllamaChatModel(base_url=server.ollama_url, model=kw.pop("model", "fake-model"), **kw)


def ask(model: OllamaChatModel, **kw):
    return list(model.stream([ChatMessage("system", "资料：……"), ChatMessage("user", "病假怎么请？")], **kw))


def test_num_ctx_and_temperature_reach_the_server_on_every_request():
    with fake_llm_server([text("按第八条办理。[2]", chunk_chars=2), text("再问一次")]) as srv:
        model = model_for(srv, context_length=16384, temperature=0.1)
        first = ask(model)
        ask(model)
    assert "".join(e.text for e in first if isinstance(e, TextDelta)) == "按第八条办理。[2]"
    assert sum(isinstance(e, TextDelta) for e in first) > 1
    assert first[-1].finish_reason == "stop" and first[-1].usage["prompt_tokens"] > 0
    bodies = srv.bodies("/api/chat")
    assert [b["options"] for b in bodies] == [{"num_ctx": 16384, "temperature": 0.1}] * 2
    assert bodies[0]["messages"] == [{"role": "system", "content": "资料：……"}, {"role": "user", "content": "病假怎么请？"}]
    assert bodies[0]["stream"] is True and bodies[0]["model"] == "fake-model"


def test_tool_calls_are_parsed_with_made_up_ids():
    with fake_llm_server([tool_call("query_knowledge_bases", {"query": "病假"}, ("search_chats", {"q": "sick"}))]) as srv:
        events = ask(model_for(srv), tools=[SEARCH])
    assert [e for e in events if isinstance(e, ToolCallsReady)] == [ToolCallsReady([
        ToolCall("call_0", "query_knowledge_bases", {"query": "病假"}), ToolCall("call_1", "search_chats", {"q": "sick"})])]
    assert isinstance(events[-1], Done) and events[-1].finish_reason == "tool_calls"
    assert srv.chat_bodies()[0]["tools"] == [SEARCH.to_openai()]


def test_tool_results_are_sent_in_ollama_shape():
    history = [
        ChatMessage("user", "病假怎么请？"),
        ChatMessage("assistant", "", tool_calls=[ToolCall("call_0", "query_knowledge_bases", {"query": "病假"})]),
        ChatMessage("tool", "[1] 病假须提交医院证明。", tool_call_id="call_0", name="query_knowledge_bases"),
    ]
    with fake_llm_server([text("须提交医院证明。[1]")]) as srv:
        assert collect(model_for(srv).stream(history)).text == "须提交医院证明。[1]"
    sent = srv.chat_bodies()[0]["messages"]
    assert sent[1]["tool_calls"] == [{"function": {"name": "query_knowledge_bases", "arguments": {"query": "病假"}}}]
    assert sent[2] == {"role": "tool", "content": "[1] 病假须提交医院证明。", "tool_name": "query_knowledge_bases"}


def test_server_down_and_timeouts():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = OllamaChatModel(base_url=f"http://127.0.0.1:{port}", model="m", timeout=5)
    with pytest.raises(LLMError, match=f"Cannot reach the model server at 127.0.0.1:{port}"):
        ask(down)
    with pytest.raises(LLMError, match="Cannot reach"):
        down.check()
    with fake_llm_server([text("late", delay=3), text("slow", stall=3)]) as srv:
        for _ in range(2):
            with pytest.raises(LLMError, match=r"no answer within 0.5 s"):
                ask(model_for(srv, timeout=0.5))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (http_error(404, "model 'fake-model' not found"), "run `ollama pull fake-model`"),
        (http_error(500, "llama runner process has terminated"), "failed with HTTP 500: llama runner process has terminated"),
        (http_error(401, "unauthorized"), "rejected the API key"),
        (http_error(400, "invalid options"), "refused the request (HTTP 400): invalid options"),
        (malformed("{not json\n"), "not valid Ollama chat output"),
        (malformed('{"error": "out of memory"}\n'), "reported an error: out of memory"),
        (text("按第八条办理。", chunk_chars=2, cut_after=2), "dropped the connection in the middle of the answer"),
        (malformed('{"model": "fake-model", "message": {"role": "assistant", "content": "cut"}, "done": false}\n'),
         "ended the answer without finishing it"),
    ],
)
def test_errors_become_admin_safe_messages(reply, expected):
    with fake_llm_server([reply]) as srv:
        with pytest.raises(LLMError) as err:
            ask(model_for(srv, api_key="secret-proxy-key"))
    assert expected in err.value.message and "Traceback" not in err.value.message
    assert "secret-proxy-key" not in err.value.message + (err.value.detail or "")


def test_check_names_the_model_and_its_context():
    with fake_llm_server(models=["qwen2.5:7b"], context_length=32768) as srv:
        msg = model_for(srv, model="qwen2.5:7b", context_length=8192).check()
        assert "qwen2.5:7b" in msg and "num_ctx is 8192" in msg and "trained for 32768" in msg
        too_big = model_for(srv, model="qwen2.5:7b", context_length=65536).check()
        assert "larger than the model supports" in too_big
        with pytest.raises(LLMError, match="ollama pull llama3"):
            model_for(srv, model="llama3").check()
        assert srv.chat_count == 0


def test_context_warning_only_at_the_small_default_with_injected_content():
    warning = needs_context_warning(2048, injecting_context=True)
    assert warning and "2048" in warning and "8192" in warning
    assert needs_context_warning(1024, injecting_context=True)
    assert needs_context_warning(2048, injecting_context=False) is None
    assert needs_context_warning(4096, injecting_context=True) is None


def _ndjson(*objects: dict) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)


def _piece(content: str) -> dict:
    return {"model": "fake-model", "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": content, "images": None}, "done": False}


def test_the_final_object_without_a_message_as_the_api_doc_shows_it():
    final = {"model": "fake-model", "created_at": "2026-01-01T00:00:01Z", "done": True, "total_duration": 4883583458,
             "load_duration": 1334875, "prompt_eval_count": 26, "prompt_eval_duration": 342546000, "eval_count": 282,
             "eval_duration": 4535599000}
    with fake_llm_server([malformed(_ndjson(_piece("The"), _piece(" sky"), final))]) as srv:
        events = ask(model_for(srv))
    assert events == [TextDelta("The"), TextDelta(" sky"), Done("stop", {"prompt_tokens": 26, "completion_tokens": 282})]


def test_a_final_object_with_done_reason_length_and_no_counts():
    final = {"model": "fake-model", "created_at": "x", "message": {"role": "assistant", "content": ""},
             "done_reason": "length", "done": True}
    with fake_llm_server([malformed(_ndjson(_piece("按第八条"), final))]) as srv:
        assert ask(model_for(srv)) == [TextDelta("按第八条"), Done("length", None)]


def test_a_host_without_a_scheme_is_read_as_ollama_reads_it():
    with fake_llm_server([text("好")]) as srv:
        events = ask(OllamaChatModel(base_url=f"127.0.0.1:{srv.port}", model="fake-model"))
    assert events[0] == TextDelta("好") and srv.chat_count == 1
