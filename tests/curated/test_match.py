"""Matching with the default embedder (multilingual-e5-small) and the default threshold: a
paraphrase gets the curated answer, a neighbouring question does not (benchmarks/curated_match.py
measures the whole set)."""

from __future__ import annotations

import pytest

from core.curated.match import judge, other_subject
from core.embeddings.factory import make_embedder
from core.settings.model import CuratedSettings, EmbeddingSettings
from core.types import SYSTEM_ACTOR as ADMIN
from tests.engine.conftest import make_engine


def test_other_subject_is_the_same_sentence_with_a_word_swapped():
    assert other_subject("How many days of sick leave do new employees get?",
                         "How many days of annual leave do new employees get?")
    assert other_subject("其他城市出差住宿每晚最多报销多少钱？", "一线城市出差住宿每晚最多报销多少钱？")
    assert not other_subject("resignation notice period?", "What is the notice period when I resign?")
    assert judge("What is the notice period, when I resign", "What is the notice period when I resign?", 0.1, 0.94).matched


@pytest.fixture(scope="module")
def e5():
    try:
        return make_embedder(EmbeddingSettings(provider="local", model="multilingual-e5-small"))
    except Exception as exc:  # the model ships in a package; say which is missing
        pytest.skip(f"multilingual-e5-small cannot be loaded here: {exc}")


@pytest.mark.parametrize("curated, paraphrase, neighbour", [
    ("What is the notice period when I resign?", "resignation notice period?",
     "What is the notice period if the company dismisses me?"),
    ("出差坐飞机需要提前几天申请？", "坐飞机出差提前几天申请", "出差坐火车需要提前几天申请？"),
    ("请病假需要提供什么证明？", "生病请假要医院证明吗", "请事假需要提供什么证明？"),
])
def test_paraphrase_hits_and_neighbour_does_not_with_the_default_model(e5, curated, paraphrase, neighbour):
    threshold = CuratedSettings().min_similarity
    c = e5.embed_query(curated)
    para, neigh = (judge(q, curated, float(e5.embed_query(q) @ c), threshold) for q in (paraphrase, neighbour))
    assert para.matched, para
    assert not neigh.matched, neigh


def test_the_engine_reembeds_curated_questions_after_a_model_change(data_dir, e5):
    engine = make_engine(data_dir)  # hash-64
    try:
        engine.create_kb(ADMIN, "hr")
        engine.add_curated(ADMIN, "hr", "请病假需要提供什么证明？", "须提供二级以上医院出具的病假证明。")
        engine.save_settings(ADMIN, {"embedding": {"model": "multilingual-e5-small"}})
        answer = engine.ask(ADMIN, "生病请假要医院证明吗", temporary=True)
        assert answer.curated is not None and answer.text == "须提供二级以上医院出具的病假证明。"
        assert engine.ask(ADMIN, "请事假需要提供什么证明？", temporary=True).curated is None
    finally:
        engine.close()
