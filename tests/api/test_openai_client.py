"""The OpenAI-compatible endpoints driven by the real ``openai`` client against the running server:
the fact and its citation, streamed and not, English and Chinese; strict mode held as in the chat."""

from __future__ import annotations

import openai
import pytest

from tests.api.conftest import FACT_EN, FACT_ZH, PRIVATE_KB, client
from tests.fakes.llm_server import fake_llm_server, text

REMOTE = "How many days per week may employees work remotely?"
HOTEL_ZH = "一线城市住宿费每晚标准是多少？"


def openai_client(api, token: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{api.url}/v1", api_key=token, max_retries=0, timeout=60)


def test_models_are_ragdesk_and_each_readable_kb(world, api):
    assert [m.id for m in openai_client(api, world.alice_token).models.list()] == ["ragdesk", f"ragdesk:{PRIVATE_KB}"]
    assert [m.id for m in openai_client(api, world.bob_token).models.list()] == ["ragdesk"]


@pytest.mark.parametrize("question, fact, source", [(REMOTE, FACT_EN, "handbook.md"), (HOTEL_ZH, FACT_ZH, "travel-zh.md")])
def test_a_completion_answers_the_fact_with_its_citation(world, api, question, fact, source):
    reply = openai_client(api, world.alice_token).chat.completions.create(
        model="ragdesk", messages=[{"role": "system", "content": "be brief"}, {"role": "user", "content": question}])
    content = reply.choices[0].message.content
    assert fact in content and "[1]" in content
    extra = reply.model_extra
    assert extra["citations"][0]["n"] == 1 and extra["citations"][0]["source_name"] == source
    assert fact in extra["citations"][0]["text"]
    assert reply.choices[0].finish_reason == "stop"


def test_a_streamed_completion_carries_the_same_answer_and_citations(world, api):
    stream = openai_client(api, world.alice_token).chat.completions.create(
        model=f"ragdesk:{PRIVATE_KB}", messages=[{"role": "user", "content": HOTEL_ZH}], stream=True)
    chunks = list(stream)
    content = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert FACT_ZH in content and "[1]" in content and len(chunks) > 2
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["citations"][0]["source_name"] == "travel-zh.md"


def test_another_users_private_kb_is_not_a_model_they_can_use(world, api):
    bob = openai_client(api, world.bob_token)
    with pytest.raises(openai.NotFoundError):
        bob.chat.completions.create(model=f"ragdesk:{PRIVATE_KB}", messages=[{"role": "user", "content": REMOTE}])
    reply = bob.chat.completions.create(model="ragdesk", messages=[{"role": "user", "content": REMOTE}])
    assert FACT_EN not in reply.choices[0].message.content and reply.model_extra["citations"] == []
    with pytest.raises(openai.AuthenticationError):
        openai_client(api, "rd_wrong").models.list()


def test_strict_mode_holds_through_the_api(world, api):
    """Strict mode on, a real model configured (the fake server): a plain user asking for a normal
    answer gets a strict one, with the notice; a question without a hit gets the fixed reply and
    no request reaches the model; an admin may still ask for normal."""
    with fake_llm_server([text("from the model's own knowledge")] * 5) as llm:
        world.engine.save_settings(world.admin, {
            "strict": {"rag_strict_mode": True},
            "llm": {"provider": "openai", "base_url": llm.openai_url, "api_key": "sk-test", "model": "fake-model"}})
        alice = openai_client(api, world.alice_token)
        no_hit = alice.chat.completions.create(model="ragdesk", extra_body={"mode": "normal"},
                                               messages=[{"role": "user", "content": "What is the capital of Peru?"}])
        facts = no_hit.model_extra["ragdesk"]
        assert facts["mode"] == "strict" and facts["hit"] is False and facts["llm_called"] is False
        assert no_hit.model_extra["citations"] == [] and "model's own" not in no_hit.choices[0].message.content
        assert any("strict mode is on" in n for n in facts["notices"])
        assert llm.chat_count == 0
        with client(api, world.alice_token) as http:
            rest = http.post("/api/v1/ask", json={"question": "What is the capital of Peru?", "mode": "normal"}).json()
        assert rest["mode"] == "strict" and rest["llm_called"] is False and llm.chat_count == 0
        assert rest["text"] == no_hit.choices[0].message.content  # the same fixed reply on both surfaces
        admin = openai_client(api, world.admin_token).chat.completions.create(
            model="ragdesk", extra_body={"mode": "normal"}, messages=[{"role": "user", "content": "What is the capital of Peru?"}])
        assert admin.model_extra["ragdesk"]["mode"] == "normal"


def test_web_search_follows_the_chats_rules(world, api, connections):
    """``web: true`` is the chat's switch: turned off in the settings it says so and searches
    nothing; in strict mode it is never searched (the strict notice), whatever the settings."""
    from core.answering.web import DISABLED_NOTICE, STRICT_NOTICE

    alice = openai_client(api, world.alice_token)
    off = alice.chat.completions.create(model="ragdesk", extra_body={"web": True},
                                        messages=[{"role": "user", "content": REMOTE}])
    assert DISABLED_NOTICE in off.model_extra["ragdesk"]["notices"]
    world.engine.save_settings(world.admin, {"strict": {"rag_strict_mode": True},
                                             "web_search": {"enable_web_search": True}})
    strict = alice.chat.completions.create(model="ragdesk", extra_body={"web": True},
                                           messages=[{"role": "user", "content": REMOTE}])
    assert STRICT_NOTICE in strict.model_extra["ragdesk"]["notices"]
    assert strict.model_extra["ragdesk"]["mode"] == "strict" and FACT_EN in strict.choices[0].message.content
    assert all(str(c[0]).startswith("127.") for c in connections if isinstance(c, tuple))  # no search engine reached


FAKE_LLM = {"provider": "openai", "api_key": "sk-test", "model": "fake-model"}
EARLIER_ANSWER = "Up to three days per week [1]."
FOLLOW_UP = "And what do new employees receive on their first day?"


def _conversation(system: str = "CLIENT-SYSTEM-PROMPT") -> list[dict]:
    return [{"role": "system", "content": system}, {"role": "user", "content": REMOTE},
            {"role": "assistant", "content": EARLIER_ANSWER}, {"role": "user", "content": FOLLOW_UP}]


def _sent_texts(llm) -> list[str]:
    return [str(m.get("content")) for body in llm.chat_bodies() for m in body["messages"]]


def test_earlier_messages_are_the_conversation_in_normal_mode(world, api):
    """A client sends the whole conversation, as OpenAI clients do: the model answering the last
    question gets the earlier turns as history (a saved chat's way); the client's system message
    is not used (the prompt is the admin's template)."""
    with fake_llm_server([text('{"query": "what new employees receive on their first day"}'),
                          text("A laptop, a monitor and a headset [1].")] * 2) as llm:
        world.engine.save_settings(world.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        reply = openai_client(api, world.alice_token).chat.completions.create(model="ragdesk", messages=_conversation())
        assert reply.model_extra["ragdesk"]["mode"] == "normal" and reply.model_extra["ragdesk"]["llm_called"]
        answer_request = llm.chat_bodies()[-1]["messages"]
        turns = [(m["role"], m["content"]) for m in answer_request]
        assert ("user", REMOTE) in turns and ("assistant", EARLIER_ANSWER) in turns
        assert turns[-1][0] == "user" and FOLLOW_UP in turns[-1][1]
        assert not any("CLIENT-SYSTEM-PROMPT" in t for t in _sent_texts(llm))
        assert any("laptop" in c["text"] for c in reply.model_extra["citations"])


def test_strict_mode_answers_the_last_question_on_its_own(world, api):
    """Strict mode on: the earlier messages reach no model request, and the answer says they were
    not used (the chat's strict mode has no history either)."""
    from core.answering.service import STRICT_HISTORY_NOTICE

    with fake_llm_server([text("A laptop, a monitor and a headset [1].")] * 3) as llm:
        world.engine.save_settings(world.admin, {"strict": {"rag_strict_mode": True},
                                                 "llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        reply = openai_client(api, world.alice_token).chat.completions.create(model="ragdesk", messages=_conversation())
        facts = reply.model_extra["ragdesk"]
        assert facts["mode"] == "strict" and STRICT_HISTORY_NOTICE in facts["notices"]
        assert not any(REMOTE in t or EARLIER_ANSWER in t for t in _sent_texts(llm))


def test_a_stream_carries_the_text_while_the_model_is_still_writing(world, api):
    """Streaming is the model's own pace: the first words reach the client while the model is
    still writing (the fake model holds the rest of its reply until the client has them)."""
    import threading

    writing = threading.Event()
    words = "Employees may work remotely up to three days per week [1]."
    with fake_llm_server([text(words, hold=writing)]) as llm:
        world.engine.save_settings(world.admin, {"llm": {**FAKE_LLM, "base_url": llm.openai_url}})
        stream = openai_client(api, world.alice_token).chat.completions.create(
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
        assert "".join(pieces) == words
        assert chunk.choices[0].finish_reason == "stop" and chunk.model_extra["citations"][0]["source_name"] == "handbook.md"
