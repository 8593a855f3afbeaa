"""A second user signing in in the same tab starts clean: nothing of the first user's session
(selected knowledge base, open chat, results) is carried over, and the second user can chat."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import button, goto, new_app, sign_in, sign_up, texts
from tests.dashboard.test_knowledge_bases import POLICY

QUESTION = "出差乘坐飞机要提前几天申请？"


def test_second_user_in_the_same_tab_can_chat(engine):
    at = sign_up(new_app(), "alice")
    alice = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(alice, "差旅", visibility="public")
    engine.ingest(alice, kb.id, [Upload("差旅.md", POLICY.encode())])
    goto(at, "kbs")
    goto(at, "chat")
    at.chat_input[0].set_value(QUESTION).run()
    assert at.session_state["chat_id"]  # alice has a chat open
    alice_chat = at.session_state["chat_id"]
    sign_up(new_app(), "bob")  # bob's account exists
    button(at, "Sign out").click()
    at.run()
    sign_in(at, "bob")
    assert "**bob** · user" in "\n".join(str(m.value) for m in at.sidebar.markdown)
    goto(at, "chat")
    assert not at.error, [e.value for e in at.error]
    assert "chat_id" not in at.session_state or at.session_state["chat_id"] != alice_chat
    assert "selected_kb" not in at.session_state
    at.chat_input[0].set_value(QUESTION).run()
    assert not at.error, [e.value for e in at.error]
    assert "提前三天申请" in "\n".join(str(m.value) for msg in at.chat_message for m in msg.markdown)
    bob = engine.actor_for(at.session_state["user_id"])
    assert [c.id for c in engine.list_chats(bob)] == [at.session_state["chat_id"]]
    assert "not found" not in texts(at)
