"""The Chat page's assistant picker over the real engine: a picked strict assistant answers from its
knowledge bases with its refusal text (no model), a private assistant of someone else is not offered."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import goto, new_app, sign_up, texts
from tests.dashboard.test_knowledge_bases import POLICY

REFUSAL = "差旅助手只回答差旅制度的问题。"
QUESTION = "出差乘坐飞机要提前几天申请？"


def _bubbles(at) -> list[str]:
    return ["\n".join(str(m.value) for m in msg.markdown) for msg in at.chat_message]


def test_a_picked_assistant_answers_with_its_preset(engine):
    root = engine.actor_for(engine.sign_up("root", "root password 1").id)  # the first account: the admin
    at = sign_up(new_app(), "alice")
    alice = engine.actor_for(at.session_state["user_id"])
    travel = engine.create_kb(alice, "差旅")
    engine.ingest(alice, travel.id, [Upload("差旅.md", POLICY.encode())])
    menu = engine.create_kb(alice, "canteen")
    engine.ingest(alice, menu.id, [Upload("menu.md", "# Canteen\n\nLunch is served from 11:30 to 13:00.".encode())])
    bob = engine.actor_for(engine.sign_up("bob", "bob password 12").id)
    engine.create_assistant(bob, "bob-private", [])  # not offered to alice
    # hash-64 vectors score lower than a real model: the assistant's own bar keeps the test about the page
    engine.create_assistant(root, "差旅助手", [travel.id], mode="strict", strict_min_similarity=0.3,
                            refusal_text=REFUSAL, visibility="public")  # an admin's may set a lower strict bar
    at = goto(at, "chat")
    picker = at.selectbox(key="chat_assistant")
    assert picker.options == ["None (knowledge bases below)", "差旅助手"]  # bob's private one is not offered
    picker.select_index(1).run()
    assert not at.exception and "差旅" in texts(at) and not [m for m in at.multiselect if m.key == "chat_kbs"]
    at.chat_input[0].set_value(QUESTION).run()
    assert "提前三天申请" in _bubbles(at)[-1]
    at.chat_input[0].set_value("When is lunch served?").run()  # the canteen answers it, not the assistant's
    last = _bubbles(at)[-1]
    assert REFUSAL in last and "model not called" in last


def test_the_ab_page_compares_through_a_picked_assistant(engine):
    from tests.dashboard.conftest import button

    at = sign_up(new_app(), "alice")  # the first account: an admin, who may compare
    alice = engine.actor_for(at.session_state["user_id"])
    travel = engine.create_kb(alice, "差旅")
    engine.ingest(alice, travel.id, [Upload("差旅.md", POLICY.encode())])
    menu = engine.create_kb(alice, "canteen")
    engine.ingest(alice, menu.id, [Upload("menu.md", "# Canteen\n\nLunch is served from 11:30 to 13:00.".encode())])
    engine.create_assistant(alice, "差旅助手", [travel.id], refusal_text=REFUSAL)
    at = goto(at, "ab")
    at.selectbox(key="ab_assistant").select_index(1).run()
    at.text_area(key="ab_question").input("When is lunch served?")
    button(at, "Compare").click()
    at.run()
    assert not at.exception
    shown = "\n".join(str(m.value) for m in at.markdown)
    assert REFUSAL in shown and "11:30" not in shown  # the canteen is not the assistant's
