"""The OpenAI-compatible provider against the fake server, through the real ``openai`` client."""

from __future__ import annotations

import json
import socket

import pytest

from core.errors import LLMError
from core.llm.base import ChatMessage, Done, TextDelta, ToolCall, ToolCallsReady, ToolSpec, collect
from core.llm.openai_chat import OpenAIChatModel
from tests.fakes import Reply, fake_llm_server, http_error, malformed, text, tool_call

KEY = "sk-test-0123456789abcdef"
SEARCH = ToolSpec("query_knowledge_bases", "Search the knowledge bases.",
                  {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})


def model_for(server, **kw) -> OpenAIChatModel:
    return OpenAIChatModel(base_url=server.openai_url, api_key=KEY, model=kw.pop("model", "fake-model"), **kw)


def ask(model: OpenAIChatModel, question: str = "年假有几天？", **kw):
    return list(model.stream([ChatMessage("system", "Answer briefly."), ChatMessage("user", question)], **kw))


def test_streams_text_in_pieces_and_sends_the_messages():
    with fake_llm_server([text("员工每年享有带薪年假五天。[1]", chunk_chars=3)]) as srv:
        events = ask(model_for(srv, temperature=0.7))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(deltas) == "员工每年享有带薪年假五天。[1]"
    assert isinstance(events[-1], Done) and events[-1].finish_reason == "stop"
    assert events[-1].usage and events[-1].usage["completion_tokens"] > 0
    body = srv.chat_bodies()[0]
    assert body["messages"] == [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "年假有几天？"}]
    assert body["stream"] is True and body["temperature"] == 0.7 and body["model"] == "fake-model"
    assert "tools" not in body
    assert srv.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_tool_call_arguments_split_across_chunks_are_joined_and_parsed():
    args = {"query": "病假工资 sick pay", "top_k": 3, "filters": {"kb": ["制度"]}}
    second = ("view_knowledge_file", {"file_id": "f-42"})
    with fake_llm_server([tool_call("query_knowledge_bases", args, second, chunk_chars=2)]) as srv:
        events = ask(model_for(srv), tools=[SEARCH])
    ready = [e for e in events if isinstance(e, ToolCallsReady)]
    assert len(ready) == 1
    assert ready[0].calls == [ToolCall("call_0", "query_knowledge_bases", args), ToolCall("call_1", "view_knowledge_file", second[1])]
    assert events[-1] == Done("tool_calls", events[-1].usage)
    assert srv.chat_bodies()[0]["tools"] == [SEARCH.to_openai()]


def test_tool_calls_end_as_tool_calls_even_when_the_server_says_stop():
    with fake_llm_server([tool_call("query_knowledge_bases", {"query": "x"}, finish_reason="stop")]) as srv:
        result = collect(model_for(srv).stream([ChatMessage("user", "x")], tools=[SEARCH]))
    assert result.finish_reason == "tool_calls" and result.tool_calls[0].arguments == {"query": "x"}


def test_tool_round_trip_messages_reach_the_server_in_openai_shape():
    call = ToolCall("call_7", "query_knowledge_bases", {"query": "年假"})
    history = [
        ChatMessage("user", "年假有几天？"),
        ChatMessage("assistant", "", tool_calls=[call]),
        ChatMessage("tool", "[1] 员工每年享有带薪年假五天。", tool_call_id="call_7", name="query_knowledge_bases"),
    ]
    with fake_llm_server([text("五天。[1]")]) as srv:
        result = collect(model_for(srv).stream(history, tools=[SEARCH]))
    assert result.text == "五天。[1]" and result.tool_calls == []
    sent = srv.chat_bodies()[0]["messages"]
    assert sent[1] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_7", "type": "function", "function": {"name": "query_knowledge_bases", "arguments": '{"query": "年假"}'}}]}
    assert sent[2] == {"role": "tool", "content": "[1] 员工每年享有带薪年假五天。", "tool_call_id": "call_7"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_down_is_a_clear_error():
    port = _free_port()  # nothing listens there any more
    model = OpenAIChatModel(base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, model="m", timeout=5)
    with pytest.raises(LLMError) as err:
        ask(model)
    assert err.value.message.startswith(f"Cannot reach the model server at 127.0.0.1:{port}")
    with pytest.raises(LLMError, match="Cannot reach"):
        model.check()


def test_timeout_before_and_during_the_stream():
    with fake_llm_server([text("late", delay=3), text("slow answer", stall=3)]) as srv:
        model = model_for(srv, timeout=0.5)
        for _ in range(2):
            with pytest.raises(LLMError, match=r"no answer within 0.5 s"):
                ask(model)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (401, "rejected the API key"),
        (403, "not allowed to use model 'fake-model'"),
        (404, "Model 'fake-model' was not found"),
        (429, "rate limiting"),
        (500, "failed with HTTP 500"),
        (503, "failed with HTTP 503"),
        (400, "refused the request (HTTP 400): maximum context length exceeded"),
    ],
)
def test_http_errors_become_admin_safe_messages(status, expected):
    with fake_llm_server([http_error(status, "maximum context length exceeded")]) as srv:
        with pytest.raises(LLMError) as err:
            ask(model_for(srv))
    assert expected in err.value.message and f"127.0.0.1:{srv.port}" in err.value.message
    assert "Traceback" not in err.value.message and srv.chat_count == 1  # no silent retries


def test_the_key_never_appears_in_messages_or_details():
    leak = f"Incorrect API key provided: {KEY}"  # some servers echo the key back
    with fake_llm_server([http_error(400, leak), http_error(401, leak)]) as srv:
        with pytest.raises(LLMError) as refused:
            ask(model_for(srv))
        with pytest.raises(LLMError) as rejected:
            ask(model_for(srv))
    assert refused.value.message.endswith("Incorrect API key provided: ***")  # server reason shown, key masked
    assert "rejected the API key" in rejected.value.message
    for err in (refused.value, rejected.value):
        assert KEY not in err.message and KEY not in (err.detail or "") and KEY not in str(err)


def test_malformed_stream_is_an_error_not_a_crash():
    with fake_llm_server([malformed("data: {this is not json\n\n")]) as srv:
        with pytest.raises(LLMError, match="not valid OpenAI chat output"):
            ask(model_for(srv))


def test_a_server_dying_mid_answer_is_an_error_not_a_short_answer():
    with fake_llm_server([text("员工每年享有带薪年假五天。", chunk_chars=2, cut_after=3)]) as srv:
        with pytest.raises(LLMError, match="dropped the connection in the middle of the answer"):
            ask(model_for(srv))


def test_a_web_page_instead_of_an_event_stream_is_an_error():
    with fake_llm_server([malformed("<html><body>Welcome to nginx!</body></html>\n")]) as srv:
        with pytest.raises(LLMError, match="sent no chat output. Check that the base URL is the API root"):
            ask(model_for(srv))


def test_tool_arguments_that_are_not_json_are_refused():
    raw = (
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake-model","choices":[{"index":0,'
        '"delta":{"tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"query_knowledge_bases",'
        '"arguments":"{\\"query\\": \\"年"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    with fake_llm_server([malformed(raw)]) as srv:
        with pytest.raises(LLMError, match="'query_knowledge_bases' with arguments that are not valid JSON"):
            ask(model_for(srv), tools=[SEARCH])


def test_check_reports_the_model_or_what_is_missing():
    with fake_llm_server(models=["qwen2.5-7b", "fake-model"]) as srv:
        assert "model 'fake-model' is available" in model_for(srv).check()
        with pytest.raises(LLMError, match=r"does not offer model 'gpt-x'. Available: qwen2.5-7b, fake-model"):
            model_for(srv, model="gpt-x").check()
        assert srv.chat_count == 0  # the check is cheap: it lists models, no completion
    with fake_llm_server(api_key="right") as srv:
        with pytest.raises(LLMError, match="rejected the API key"):
            model_for(srv).check()


def _sse(*events: object) -> str:
    """A chat-completions event stream: each event a ``data: <json>`` line and a blank line."""
    return "".join(f"data: {e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)}\n\n" for e in events)


def _chunk(choices: list, **extra) -> dict:
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "fake-model", "choices": choices, **extra}


def test_the_documented_chunk_shapes_null_content_and_a_usage_chunk_without_choices():
    raw = _sse(
        _chunk([{"index": 0, "delta": {"role": "assistant", "content": None}, "finish_reason": None}], usage=None),
        _chunk([{"index": 0, "delta": {"content": "五天"}, "logprobs": None, "finish_reason": None}]),
        _chunk([{"index": 0, "delta": {}, "finish_reason": "length"}]),
        _chunk([], usage={"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}),
        "[DONE]",
    )
    with fake_llm_server([malformed(raw)]) as srv:
        events = ask(model_for(srv))
    assert events == [TextDelta("五天"), Done("length", {"prompt_tokens": 9, "completion_tokens": 2})]


@pytest.mark.parametrize(("events", "expected"), [
    # after the answer began: the server's words, and that it broke off mid-answer
    ([_chunk([{"index": 0, "delta": {"content": "员工"}, "finish_reason": None}]),
      {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}],
     "reported an error in the middle of the answer: The server had an error while processing your request."),
    # before any text (a prompt the server refuses once streaming has started)
    ([{"error": {"object": "error", "message": "This model's maximum context length is 8192 tokens.", "code": 400}}],
     "reported an error: This model's maximum context length is 8192 tokens."),
    # an error given as a plain string
    ([{"error": f"upstream refused key {KEY}"}], "reported an error: upstream refused key ***"),
])
def test_an_error_event_inside_the_stream_is_reported_in_the_servers_words(events, expected):
    with fake_llm_server([malformed(_sse(*events))]) as srv:
        with pytest.raises(LLMError) as err:
            ask(model_for(srv))
    assert err.value.message == f"The model server at 127.0.0.1:{srv.port} {expected}"
    assert KEY not in str(err.value) and KEY not in (err.value.detail or "")


def test_a_429_says_in_the_servers_words_which_limit_and_when_to_come_back():
    quota = "You exceeded your current quota, please check your plan and billing details."
    with fake_llm_server([http_error(429, quota, headers={"Retry-After": "20"}), http_error(429, "Rate limit reached")]) as srv:
        with pytest.raises(LLMError) as spent:
            ask(model_for(srv))
        with pytest.raises(LLMError) as limited:
            ask(model_for(srv))
    assert f"(HTTP 429): {quota} Try again in 20 s." in spent.value.message
    assert limited.value.message.endswith("(HTTP 429): Rate limit reached. Try again shortly.")
    assert srv.chat_count == 2  # no silent retries


def test_a_server_that_rejects_stream_options_is_asked_again_without_them():
    # the words an older Azure API version and some compatible servers answer the field with
    rejected = http_error(400, "Unrecognized request argument supplied: stream_options")
    with fake_llm_server([rejected, text("五天。"), text("十天。")]) as srv:
        model = model_for(srv)
        first = ask(model)
        second = ask(model, "病假有几天？")
        bodies = srv.chat_bodies()
    assert "".join(e.text for e in first if isinstance(e, TextDelta)) == "五天。"
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "十天。"
    assert [("stream_options" in b) for b in bodies] == [True, False, False]  # not sent again by this client
    assert isinstance(first[-1], Done) and first[-1].usage is None  # no token counts, the answer whole


def test_another_bad_request_is_reported_not_retried():
    with fake_llm_server([http_error(400, "messages: too long"), text("never")]) as srv:
        with pytest.raises(LLMError):
            ask(model_for(srv))
        assert srv.chat_count == 1


def test_a_server_that_answers_whole_instead_of_streaming_is_read():
    # some compatible servers ignore "stream" and send the chat.completion as one JSON body
    with fake_llm_server([text("员工每年享有带薪年假五天。", whole=True),
                          tool_call("kb_search", {"q": "年假"}, whole=True)]) as srv:
        model = model_for(srv)
        events = ask(model)
        called = ask(model, tools=[ToolSpec("kb_search", "search", {"type": "object", "properties": {}})])
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "员工每年享有带薪年假五天。"
    assert isinstance(events[-1], Done) and events[-1].finish_reason == "stop" and events[-1].usage["completion_tokens"] > 0
    ready = [e for e in called if isinstance(e, ToolCallsReady)]
    assert ready and ready[0].calls[0].name == "kb_search" and ready[0].calls[0].arguments == {"q": "年假"}


def test_a_whole_json_answer_that_is_no_chat_completion_is_an_error_naming_the_server():
    with fake_llm_server([Reply(raw='{"choices": "none"}', whole=True)]) as srv:
        with pytest.raises(LLMError, match="127.0.0.1.*not a chat completion"):
            list(model_for(srv).stream([ChatMessage("user", "hi")]))
