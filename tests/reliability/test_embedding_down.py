"""The embedding service is down: the seed says chat carries on without retrieval. Today ``ask``
failed with "Embedding API … unreachable" in both modes.

Expected: normal mode answers without knowledge-base context, with the notice "knowledge-base
search is unavailable"; strict mode gives its fixed reply and calls no model; neither is an
error. The knowledge base is embedded through the real OpenAI-compatible client and the fake
embedding server; then the server stops (nothing listens on its port) or answers errors. The fake
LLM server counts the model calls."""

from __future__ import annotations

import socket

import pytest

from core.answering.replies import NO_HIT_REPLY
from core.types import SYSTEM_ACTOR as ADMIN
from core.accounts.users import actor_of
from tests.answering.conftest import configure, use_openai
from tests.engine.conftest import POLICY_MD, make_engine, md
from tests.fakes import fake_llm_server, text
from tests.fakes.embedding_server import fake_embedding_server, http_error

QUESTION = "一线城市住宿费每晚不超过多少？"
UNAVAILABLE = "知识库检索暂不可用"  # the questions are Chinese: so is the notice (issue 36)


@pytest.fixture
def llm():
    with fake_llm_server() as srv:
        yield srv


@pytest.fixture
def world(data_dir, monkeypatch, llm):
    """(engine, the embedding server): a knowledge base embedded through the API, the LLM on the fake server."""
    for var in ("DATABASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    engine = make_engine(data_dir)
    with fake_embedding_server() as emb:
        configure(engine, embedding={"provider": "openai", "base_url": emb.openai_url, "model": "fake-embed"},
                  strict={"rag_strict_min_similarity": 0.05}, retrieval={"rag_min_similarity": 0.05})
        engine.create_kb(ADMIN, "policy", visibility="public")
        [result] = engine.ingest(ADMIN, "policy", [md("travel.md", POLICY_MD)])
        assert result.status == "indexed", result.error
        use_openai(engine, llm)
        llm.add(text("六百元 [1]"))
        # searchable while the service is up (another question: query vectors are cached)
        assert engine.ask(ADMIN, "一线城市住宿费的标准是什么？", temporary=True, mode="normal").hit
        yield engine, emb
    engine.close()


def _check_both_modes(engine, llm, actor) -> None:
    before = llm.chat_count
    llm.add(text("一线城市一般每晚几百元。"))
    normal = engine.ask(actor, QUESTION, temporary=True, mode="normal")
    assert not normal.error, normal.error
    assert any(UNAVAILABLE in n for n in normal.notices), normal.notices
    assert normal.llm_called and llm.chat_count == before + 1 and not normal.hit and not normal.from_kb
    assert normal.text.endswith("一线城市一般每晚几百元。") and not normal.citations
    sent = llm.chat_bodies()[-1]["messages"]
    assert "六百元" not in str(sent)  # no knowledge-base passage reached the model

    strict = engine.ask(actor, QUESTION, temporary=True, mode="strict")
    assert not strict.error, strict.error
    assert strict.text == NO_HIT_REPLY["zh"] and not strict.llm_called and llm.chat_count == before + 1
    assert any(UNAVAILABLE in n for n in strict.notices), strict.notices


def test_nothing_listening_on_the_embedding_port(world, llm):
    engine, emb = world
    emb.stop()  # the port is closed now: connections are refused
    _check_both_modes(engine, llm, ADMIN)


def test_the_client_points_at_a_port_where_nothing_listens(world, llm):
    """A new client (the settings changed, or the dashboard restarted) does not know the vectors'
    dimension yet: even its first probe fails."""
    engine, emb = world
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    configure(engine, embedding={"base_url": f"http://127.0.0.1:{dead_port}/v1"})
    _check_both_modes(engine, llm, ADMIN)


def test_the_embedding_server_answers_errors(world, llm):
    engine, emb = world
    emb.fail_next(*[http_error(503, "overloaded")] * 20)
    _check_both_modes(engine, llm, ADMIN)
    # A plain user reads a plain sentence, not the service's address.
    engine.sign_up("alice", "alice-password")  # the first account is the admin
    user = actor_of(engine.sign_up("bob", "bob-password"))
    emb.fail_next(*[http_error(503, "overloaded")] * 20)
    answer = engine.ask(user, QUESTION, temporary=True, mode="strict")
    notice = next(n for n in answer.notices if UNAVAILABLE in n)
    assert "127.0.0.1" not in notice and not answer.error


def test_a_saved_chat_stores_the_answer_not_an_error(world, llm):
    engine, emb = world
    emb.stop()
    chat = engine.create_chat(ADMIN, "down")
    llm.add(text("一线城市一般每晚几百元。"))
    answer = engine.ask(ADMIN, QUESTION, chat_id=chat.id, mode="normal")
    stored = engine.chat_messages(ADMIN, chat.id)[-1]
    assert not answer.error and not stored.error and stored.content == answer.text
    assert any(UNAVAILABLE in n for n in stored.notices)
