"""compare(): both modes side by side, nothing stored, the question embedded once."""

from __future__ import annotations

from sqlmodel import func, select

from core.answering.replies import NO_HIT_REPLY
from core.config import RuntimeConfig
from core.db.models import Chat, Message
from core.engine import Engine
from core.types import SYSTEM_ACTOR as ADMIN
from tests.engine.conftest import POLICY_MD, md
from tests.fakes.embedding_server import fake_embedding_server


def test_compare_answers_in_both_modes_embeds_the_question_once_and_stores_nothing(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=64) as emb, Engine(RuntimeConfig.from_env(data_dir)) as engine:
        engine.save_settings(ADMIN, {"embedding": {"provider": "openai", "base_url": emb.openai_url, "model": "fake-embed"}})
        engine.create_kb(ADMIN, "policy")
        engine.ingest(ADMIN, "policy", [md("travel.md", POLICY_MD)])
        engine.search(ADMIN, "warm-up", ["policy"])  # the calibration anchors are embedded once per process
        before = emb.embed_count
        question = "出差乘坐飞机须提前几天申请？"
        result = engine.compare(ADMIN, question)
        assert emb.embed_count == before + 1  # the strict pass reused the normal pass's query vector
        assert result.question == question
        assert (result.normal.mode, result.strict.mode) == ("normal", "strict")
        assert result.normal.retrieved and result.strict.retrieved
        assert result.normal.timings_ms["total_ms"] > 0 and result.strict.timings_ms["total_ms"] > 0
        batch = engine.compare_batch(ADMIN, [question, "  ", "today's weather?"])
        assert [c.question for c in batch] == [question, "today's weather?"]
        # the fixed reply in the question's language
        assert batch[1].strict.text == NO_HIT_REPLY["en"] and not batch[1].strict.llm_called
        with engine._db.read() as s:
            assert s.exec(select(func.count()).select_from(Chat)).one() == 0
            assert s.exec(select(func.count()).select_from(Message)).one() == 0
