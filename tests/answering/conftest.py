"""An engine with a small indexed knowledge base (hash embedder) and helpers that point the
LLM settings at the fake OpenAI / Ollama server."""

from __future__ import annotations

import pytest

from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, make_engine, md
from tests.fakes import fake_llm_server

__all__ = ["use_openai", "use_ollama", "configure", "knowledge"]


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    e.create_kb(SYSTEM_ACTOR, "policy")
    results = e.ingest(SYSTEM_ACTOR, "policy", [md("travel.md", POLICY_MD), md("handbook.md", HANDBOOK_MD)])
    assert all(r.status == "indexed" for r in results), results
    yield e
    e.close()


@pytest.fixture
def server():
    with fake_llm_server() as srv:
        yield srv


def configure(engine, **sections) -> None:
    engine.save_settings(SYSTEM_ACTOR, sections)


def use_openai(engine, srv, **llm) -> None:
    configure(engine, llm={"provider": "openai", "base_url": srv.openai_url, "api_key": "sk-test", "model": "fake-model", **llm})


def use_ollama(engine, srv, **llm) -> None:
    configure(engine, llm={"provider": "ollama", "base_url": srv.ollama_url, "model": "fake-model", **llm})


def knowledge(engine, actor):
    """What answering gets for ``actor``'s question (the knowledge-base part of its context)."""
    from core.answer_context import answer_context

    snap = engine._snapshot()
    return answer_context(engine._parts, snap, engine._searcher(snap), actor).knowledge
