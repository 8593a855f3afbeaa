"""``POST /api/v1/ask/stream``: the answer of /api/v1/ask as server-sent events, on both backends
(the API's own engine, and the dashboard's through the hand-off). The model is a local stand-in
speaking the OpenAI streaming protocol that holds the rest of its reply until the test has read the
first words: the first ``text`` event must reach the client while the model is still writing.
Errors before the first event keep their HTTP statuses; a strict refusal's answer is the fixed reply
(``from_kb`` false), nothing was generated, and the model gets no request."""

from __future__ import annotations

import json
import threading

import pytest

from tests.api.conftest import PRIVATE_KB, api, world  # noqa: F401 (fixtures)
from tests.api.test_handoff_api import dashboard, handoff_api  # noqa: F401 (fixtures)
from tests.fakes.llm_server import fake_llm_server, text

REMOTE = "How many days per week may employees work remotely?"
WORDS = "Employees may work remotely up to three days per week [1]."
OFF_TOPIC = "What is the boiling point of liquid nitrogen on Neptune?"
FIXED = "Nothing in the knowledge base answers this."
FAKE_LLM = {"provider": "openai", "api_key": "sk-test", "model": "fake-model"}


@pytest.fixture(params=["engine", "handoff"])
def served(request):
    """(the world's owner: engine, admin, tokens; the API server) for either backend."""
    if request.param == "engine":
        return request.getfixturevalue("world"), request.getfixturevalue("api")
    return request.getfixturevalue("dashboard"), request.getfixturevalue("handoff_api")


def events(response) -> list[tuple[str, dict]]:
    """The stream's events as (name, data), read as they arrive."""
    kind = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            kind = line[len("event: "):]
        elif line.startswith("data: ") and kind is not None:
            yield kind, json.loads(line[len("data: "):])
            kind = None


def _post(server, token: str, body: dict):
    import httpx

    return httpx.stream("POST", f"{server.url}/api/v1/ask/stream", json=body, timeout=90, trust_env=False,
                        headers={"Authorization": f"Bearer {token}"})


def test_the_first_words_arrive_while_the_model_is_still_writing(served):
    owner, server = served
    writing = threading.Event()
    with fake_llm_server([text(WORDS, hold=writing)]) as llm:
        owner.engine.save_settings(owner.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        seen, finished_at_first_text, pieces = [], None, []
        try:
            with _post(server, owner.alice_token, {"question": REMOTE, "kbs": [PRIVATE_KB], "mode": "normal"}) as reply:
                assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/event-stream")
                for kind, data in events(reply):
                    seen.append(kind)
                    if kind == "text":
                        if finished_at_first_text is None:
                            finished_at_first_text = llm.replies_finished
                            writing.set()
                        pieces.append(data["message"])
                    if kind == "answer":
                        answer = data
        finally:
            writing.set()
    assert finished_at_first_text == 0  # the model had not finished when the first words arrived
    assert seen.index("retrieval_started") < seen.index("sources_found") < seen.index("text") < seen.index("answer")
    assert seen[-1] == "answer" and "".join(pieces) == WORDS
    assert answer["text"] == WORDS and answer["from_kb"] is True and answer["llm_called"] is True
    assert answer["citations"][0]["source_name"] == "handbook.md"


def test_errors_before_the_first_event_keep_their_http_status(served):
    owner, server = served
    with _post(server, "rd_" + "w" * 43, {"question": REMOTE}) as wrong_token:
        assert wrong_token.status_code == 401
        wrong_token.read()
        assert wrong_token.json()["error"]["code"] == "not_authenticated"
    with _post(server, owner.bob_token, {"question": REMOTE, "kbs": [PRIVATE_KB]}) as not_bobs:
        not_bobs.read()
        assert not_bobs.status_code == 404 and "three days" not in not_bobs.text
    with _post(server, owner.alice_token, {"question": ""}) as empty:
        empty.read()
        assert empty.status_code == 422


def test_a_strict_refusal_streams_the_fixed_reply_and_calls_no_model(served):
    owner, server = served
    with fake_llm_server([text("an invented answer [1]")]) as llm:
        owner.engine.save_settings(owner.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url},
                                                 "strict": {"rag_strict_no_hit_reply": FIXED}})
        with _post(server, owner.alice_token, {"question": OFF_TOPIC, "kbs": [PRIVATE_KB], "mode": "strict"}) as reply:
            got = list(events(reply))
        assert llm.request_count == 0
    kinds = [k for k, _ in got]
    assert kinds[-1] == "answer" and "no_hit" in kinds
    answer = got[-1][1]
    assert answer["text"] == FIXED and answer["from_kb"] is False and answer["llm_called"] is False
    assert answer["mode"] == "strict" and answer["citations"] == []
    assert "text" not in kinds and "generating" not in kinds  # no model wrote anything: the reply is the answer's
