"""A streamed completion through the hand-off (``python -m core api`` while the dashboard holds the
embedded store): the answer's events cross the socket as they happen, so the first words reach
the HTTP client while the model (a local stand-in speaking the OpenAI streaming protocol) is
still writing; errors keep their HTTP statuses; a strict refusal streams the fixed reply with no
model call; a client that goes away mid-answer leaves the dashboard serving."""

from __future__ import annotations

import logging
import threading
import time

import openai
import pytest

from core.errors import InvalidInput, NotAuthenticated
from core.handoff.channel import RemoteEngine
from tests.api.conftest import FACT_EN, client
from tests.api.test_handoff_api import dashboard, handoff_api  # noqa: F401 (fixtures)
from tests.fakes.llm_server import fake_llm_server, text

REMOTE = "How many days per week may employees work remotely?"
WORDS = "Employees may work remotely up to three days per week [1]."
FAKE_LLM = {"provider": "openai", "api_key": "sk-test", "model": "fake-model"}


def _openai(api, token: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{api.url}/v1", api_key=token, max_retries=0, timeout=60)


def test_the_first_words_reach_the_client_while_the_model_is_still_writing(dashboard, handoff_api):
    """The stand-in model holds the rest of its reply until the test has read the first words:
    had the hand-off waited for the whole answer, the first words would come after the model
    finished (after its one-minute hold) and ``replies_finished`` would be 1."""
    writing = threading.Event()
    with fake_llm_server([text(WORDS, hold=writing)]) as llm:
        dashboard.engine.save_settings(dashboard.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        stream = _openai(handoff_api, dashboard.alice_token).chat.completions.create(
            model="ragdesk", messages=[{"role": "user", "content": REMOTE}], stream=True)
        pieces, finished_at_first_piece = [], None
        try:
            for chunk in stream:
                piece = chunk.choices[0].delta.content if chunk.choices else None
                if piece and finished_at_first_piece is None:
                    finished_at_first_piece = llm.replies_finished
                    writing.set()
                pieces.append(piece or "")
        finally:
            writing.set()
        assert finished_at_first_piece == 0  # the model had not finished when the first words arrived
        assert "".join(pieces) == WORDS
        assert chunk.choices[0].finish_reason == "stop"
        assert chunk.model_extra["citations"][0]["source_name"] == "handbook.md"
        facts = chunk.model_extra["ragdesk"]
        assert facts["llm_called"] is True and facts["from_kb"] is True and facts["mode"] == "normal"


def test_errors_before_the_first_words_keep_their_http_status(dashboard, handoff_api):
    with pytest.raises(openai.AuthenticationError):
        _openai(handoff_api, "rd_" + "w" * 43).chat.completions.create(
            model="ragdesk", messages=[{"role": "user", "content": REMOTE}], stream=True)
    with pytest.raises(openai.NotFoundError):
        _openai(handoff_api, dashboard.bob_token).chat.completions.create(
            model="ragdesk:alice-private-notes", messages=[{"role": "user", "content": REMOTE}], stream=True)
    with pytest.raises(openai.UnprocessableEntityError):  # InvalidInput: 422, as without the hand-off
        _openai(handoff_api, dashboard.alice_token).chat.completions.create(
            model="ragdesk", messages=[{"role": "system", "content": "no question"}], stream=True)


def test_a_strict_refusal_streams_the_fixed_reply_without_a_model_call(dashboard, handoff_api):
    question = "What is the capital of Peru?"
    with fake_llm_server([text("from the model's own knowledge")] * 3) as llm:
        dashboard.engine.save_settings(dashboard.admin, {"strict": {"rag_strict_mode": True},
                                                         "llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        chunks = list(_openai(handoff_api, dashboard.alice_token).chat.completions.create(
            model="ragdesk", extra_body={"mode": "normal"}, messages=[{"role": "user", "content": question}],
            stream=True))
        content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        facts = chunks[-1].model_extra["ragdesk"]
        assert facts["mode"] == "strict" and facts["hit"] is False
        assert facts["llm_called"] is False and facts["from_kb"] is False
        assert chunks[-1].model_extra["citations"] == [] and llm.chat_count == 0
        with client(handoff_api, dashboard.alice_token) as http:  # the same fixed reply as the REST ask
            rest = http.post("/api/v1/ask", json={"question": question}).json()
        assert content == rest["text"] and rest["from_kb"] is False and llm.chat_count == 0


def test_the_channel_sends_events_only_for_a_command_that_takes_them(dashboard, data_dir):
    remote = RemoteEngine(data_dir)
    events: list[dict] = []
    with pytest.raises(InvalidInput, match="no events"):
        remote.call("list_kbs", on_event=events.append)
    with pytest.raises(NotAuthenticated):  # the token is still checked next to the engine, before any event
        remote.call("api_call", on_event=events.append, op="ask", input={"question": REMOTE}, token="rd_" + "n" * 43)
    assert events == []
    reply = remote.call("api_call", on_event=events.append, op="openai_chat", token=dashboard.alice_token,
                        input={"messages": [{"role": "user", "content": REMOTE}]})
    kinds = [e["kind"] for e in events]
    said = "".join(e["message"] for e in events if e["kind"] == "text")
    assert kinds[0] != "text" and kinds[-1] == "done"  # statuses too, in the order they happened
    assert said == reply["choices"][0]["message"]["content"] and FACT_EN in said


def test_a_client_gone_mid_answer_leaves_the_dashboard_serving(dashboard, data_dir, caplog):
    """The API side stops reading after the first words (its HTTP client went away): the dashboard's
    answer runs to its end without anyone listening, logs no failure, and serves the next call."""
    writing = threading.Event()
    with fake_llm_server([text(WORDS, hold=writing), text(WORDS)]) as llm:
        dashboard.engine.save_settings(dashboard.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})

        class Gone(Exception):
            pass

        def leave_at_first_words(event: dict) -> None:
            if event["kind"] == "text":
                writing.set()
                raise Gone

        with caplog.at_level(logging.WARNING, logger="core"), pytest.raises(Gone):
            RemoteEngine(data_dir).call("api_call", on_event=leave_at_first_words, op="openai_chat",
                                        input={"messages": [{"role": "user", "content": REMOTE}]},
                                        token=dashboard.alice_token)
        again = RemoteEngine(data_dir).call("api_call", op="openai_chat", token=dashboard.alice_token,
                                            input={"messages": [{"role": "user", "content": REMOTE}]})
        assert again["choices"][0]["message"]["content"] == WORDS
        deadline = time.monotonic() + 30  # the abandoned answer ran on to its end, in the dashboard's process
        while llm.replies_finished < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert llm.replies_finished == 2
        assert not [r for r in caplog.records if "failed" in r.getMessage()]


def test_an_http_client_gone_mid_stream_leaves_the_api_and_the_dashboard_serving(dashboard, handoff_api, caplog):
    writing = threading.Event()
    with fake_llm_server([text(WORDS, hold=writing), text(WORDS)]) as llm:
        dashboard.engine.save_settings(dashboard.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        body = {"model": "ragdesk", "stream": True, "messages": [{"role": "user", "content": REMOTE}]}
        with caplog.at_level(logging.WARNING, logger="core"), client(handoff_api, dashboard.alice_token) as http:
            with http.stream("POST", "/v1/chat/completions", json=body) as reply:
                assert reply.status_code == 200
                for line in reply.iter_lines():
                    if '"content": "' in line and '"content": ""' not in line:
                        break  # the first words: the client leaves while the model is still writing
            writing.set()
            again = http.post("/v1/chat/completions", json={**body, "stream": False})
            assert again.status_code == 200 and again.json()["choices"][0]["message"]["content"] == WORDS
            deadline = time.monotonic() + 30  # the abandoned answer runs on to its end, in the dashboard
            while llm.replies_finished < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert llm.replies_finished == 2 and llm.chat_count == 2
        assert not [r for r in caplog.records if "failed" in r.getMessage()]
