"""Chat page (issue 18): a normal-mode answer resting on a weak match says so — a notice in the
question's language and the badge "weak match in the knowledge base" instead of "from the
knowledge base" — live and when the chat is reopened from the stored message."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import goto, new_app, sign_up
from tests.dashboard.test_knowledge_bases import POLICY

QUESTION = "出差乘坐飞机要提前几天申请？"
NEAR_MISS = "实习生出差乘坐飞机要提前几天申请？"


def _bubbles(at) -> list[str]:
    return ["\n".join(str(m.value) for m in msg.markdown) + "\n".join(str(i.value) for i in msg.info)
            for msg in at.chat_message]


def test_a_weak_match_is_not_shown_as_a_plain_knowledge_base_answer(engine):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "差旅")
    engine.ingest(actor, kb.id, [Upload("差旅.md", POLICY.encode())])
    at = goto(at, "chat")
    at.chat_input[0].set_value(QUESTION).run()
    strong = _bubbles(at)[-1]
    assert "提前三天申请" in strong and "from the knowledge base" in strong and "weak match" not in strong
    # A question about interns, whom the policy never names, with the threshold just under its best
    # passage's score: a near miss, answered and labelled.
    best = engine.search(actor, NEAR_MISS, [kb.id], min_score=0).hits[0].score
    engine.save_settings(actor, {"retrieval": {"rag_min_similarity": round(best - 0.01, 4)}})
    at.chat_input[0].set_value(NEAR_MISS).run()
    weak = _bubbles(at)[-1]
    assert "提前三天申请" in weak  # still answered: normal mode does not refuse
    assert "weak match in the knowledge base" in weak and "from the knowledge base" not in weak
    assert "匹配较弱" in weak  # the notice, in the question's language
    # A passage that answers the question is no weak match, however close to the threshold it scored.
    closest = engine.search(actor, QUESTION, [kb.id], min_score=0).hits[0].score
    engine.save_settings(actor, {"retrieval": {"rag_min_similarity": round(closest - 0.01, 4)}})
    at.chat_input[0].set_value(QUESTION).run()
    answered = _bubbles(at)[-1]
    assert "from the knowledge base" in answered and "weak match" not in answered and "匹配较弱" not in answered
    at.sidebar.button(key="new_chat").click().run()
    reopen = [b for b in at.sidebar.button if b.key and b.key.startswith("chat_")]
    reopen[0].click().run()
    stored = _bubbles(at)
    assert "weak match in the knowledge base" in stored[3] and "from the knowledge base" in stored[1]
