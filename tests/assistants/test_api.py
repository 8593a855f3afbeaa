"""Assistants over HTTP (a real uvicorn server over a real engine): the REST routes come from the
operations, ``model="assistant:<name>"`` answers with the preset on the OpenAI endpoint (the real
``openai`` client), ``/v1/models`` lists the assistants the caller may use, and a strict assistant's
refusal sends no request to the model."""

from __future__ import annotations

import openai
import pytest

from core.api.app import create_app
from core.api.backend import EngineBackend
from tests.api.conftest import FACT_ZH, PRIVATE_KB, LiveServer, build_world, client
from tests.engine.conftest import make_engine
from tests.fakes.llm_server import fake_llm_server, text

HOTEL_ZH = "一线城市住宿费每晚标准是多少？"
REFUSAL = "该助手只回答差旅制度问题。"


@pytest.fixture
def api_world(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    engine = make_engine(data_dir)
    world = build_world(engine)
    server = LiveServer(create_app(EngineBackend(engine)))
    yield world, server
    server.stop()
    engine.close()


def _openai(server, token: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=token, max_retries=0, timeout=60)


def test_rest_routes_create_list_change_ask_and_delete(api_world):
    world, server = api_world
    with client(server, world.alice_token) as alice, client(server, world.bob_token) as bob:
        made = alice.post("/api/v1/assistants", json={"name": "travel", "kbs": [PRIVATE_KB], "mode": "strict",
                                                      "refusal_text": REFUSAL, "top_k": 3})
        assert made.status_code == 201, made.text
        assert made.json()["kbs"] == [PRIVATE_KB] and made.json()["top_k"] == 3
        assert [a["name"] for a in alice.get("/api/v1/assistants").json()] == ["travel"]
        assert bob.get("/api/v1/assistants").json() == []
        assert bob.get("/api/v1/assistants/travel").status_code == 404
        asked = alice.post("/api/v1/assistants/travel/ask", json={"question": HOTEL_ZH}).json()
        assert asked["mode"] == "strict" and asked["hit"] and FACT_ZH in asked["text"]
        refused = alice.post("/api/v1/assistants/travel/ask", json={"question": "What is the capital of Peru?"}).json()
        assert refused["text"] == REFUSAL and refused["llm_called"] is False
        assert bob.post("/api/v1/assistants/travel/ask", json={"question": HOTEL_ZH}).status_code == 404
        changed = alice.post("/api/v1/assistants/travel", json={"visibility": "public", "clear": ["top_k"]})
        assert changed.status_code == 200 and changed.json()["top_k"] is None
        # public now, but alice's knowledge base is still private: bob's question searches nothing (the
        # refusal text, no model call), never widened
        assert bob.get("/api/v1/assistants/travel").json()["hidden_kbs"] == 1
        denied = bob.post("/api/v1/assistants/travel/ask", json={"question": HOTEL_ZH})
        assert denied.status_code == 200 and FACT_ZH not in denied.text
        assert denied.json()["text"] == REFUSAL and denied.json()["llm_called"] is False
        assert bob.delete("/api/v1/assistants/travel").status_code == 403
        assert alice.delete("/api/v1/assistants/travel").json() == {"deleted": "travel"}
        assert alice.get("/api/v1/assistants").json() == []
        bad = alice.post("/api/v1/assistants", json={"name": "x", "kbs": [], "prompt": "no placeholder"})
        assert bad.status_code == 422 and "CONTEXT" in bad.text


def test_openai_model_assistant_routes_to_the_preset_and_models_lists_it(api_world):
    world, server = api_world
    with fake_llm_server([text("from the model's own knowledge")] * 5) as llm:
        world.engine.save_settings(world.admin, {"llm": {"provider": "openai", "base_url": llm.openai_url,
                                                         "api_key": "sk-test", "model": "fake-model"}})
        world.engine.create_assistant(world.alice, "差旅助手", [PRIVATE_KB], mode="strict", refusal_text=REFUSAL)
        alice, bob = _openai(server, world.alice_token), _openai(server, world.bob_token)
        assert [m.id for m in alice.models.list()] == ["ragdesk", f"ragdesk:{PRIVATE_KB}", "assistant:差旅助手"]
        assert [m.id for m in bob.models.list()] == ["ragdesk"]
        hit = alice.chat.completions.create(model="assistant:差旅助手",
                                            messages=[{"role": "user", "content": HOTEL_ZH}])
        assert hit.model == "assistant:差旅助手" and hit.model_extra["ragdesk"]["mode"] == "strict"
        assert hit.model_extra["citations"][0]["source_name"] == "travel-zh.md"
        calls = llm.chat_count
        # the client asks for normal: the assistant's strict preset holds; no hit: its refusal, no model
        no_hit = alice.chat.completions.create(model="assistant:差旅助手", extra_body={"mode": "normal"},
                                               messages=[{"role": "user", "content": "What is the capital of Peru?"}])
        assert no_hit.choices[0].message.content == REFUSAL
        assert no_hit.model_extra["ragdesk"]["llm_called"] is False and llm.chat_count == calls
        streamed = list(alice.chat.completions.create(model="assistant:差旅助手", stream=True,
                                                      messages=[{"role": "user", "content": "What is the capital of Peru?"}]))
        assert "".join(c.choices[0].delta.content or "" for c in streamed) == REFUSAL and llm.chat_count == calls
        with pytest.raises(openai.NotFoundError):
            bob.chat.completions.create(model="assistant:差旅助手", messages=[{"role": "user", "content": HOTEL_ZH}])
        with pytest.raises(openai.NotFoundError):
            alice.chat.completions.create(model="assistant:nobody", messages=[{"role": "user", "content": HOTEL_ZH}])
        # a preset takes no metadata filter yet: refused plainly, not silently dropped
        with pytest.raises(openai.UnprocessableEntityError, match="assistant"):
            alice.chat.completions.create(model="assistant:差旅助手", extra_body={"where": {"file_name": "travel-zh.md"}},
                                          messages=[{"role": "user", "content": HOTEL_ZH}])
