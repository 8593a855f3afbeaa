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
