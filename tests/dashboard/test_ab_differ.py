"""Strict A/B page (issue 18): "Modes differ" and the "only where the modes differ" switch count
verdict differences (answered / refused / wrong), not two refusals worded differently."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import button, goto, new_app, sign_up, texts
from tests.dashboard.test_knowledge_bases import POLICY

COVERED = "出差乘坐飞机要提前几天申请？"


def test_modes_differ_counts_verdicts_not_wording(engine):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "差旅")
    engine.ingest(actor, kb.id, [Upload("差旅.md", POLICY.encode())])
    # hash-64 test vectors score lower than a real model: a lower strict bar keeps the covered
    # question answered in both modes
    engine.save_settings(actor, {"strict": {"rag_strict_min_similarity": 0.3}})
    at = goto(at, "ab")
    # Both off-topic questions are refused in both modes, in other words (normal: "nothing relevant
    # was found…", strict: its fixed reply); the covered one is answered in both.
    at.text_area(key="ab_paste").input(f"今天天气怎么样？\nWho won the football world cup in 1998?\n{COVERED}\n")
    button(at, "Run batch").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    table = next(d.value for d in at.dataframe if "question" in d.value.columns)
    assert table.loc[0, "normal_answer"] != table.loc[0, "strict_answer"]  # worded differently
    differ = next(m for m in at.metric if m.label == "Modes differ")
    assert differ.value == "0"
    assert list(table["normal_verdict"]) == ["refused", "refused", "answered"]
    assert list(table["strict_verdict"]) == ["refused", "refused", "answered"]
    at.toggle(key="ab_only_differ").set_value(True).run()
    assert "0 of 3 questions" in texts(at)
