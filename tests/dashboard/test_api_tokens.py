"""API tokens on the page (sidebar popover): a user makes one and sees it once, lists only their
own, revokes one after confirming; in both languages. The real app over a real engine."""

from __future__ import annotations

import pytest

from core.errors import NotAuthenticated
from tests.dashboard.conftest import button, new_app, sign_up, texts


def _create(at, label: str, days: str = "30") -> str:
    at.sidebar.text_input(key="api_token_label").input(label)
    at.sidebar.selectbox(key="api_token_days_en").select("never" if days == "never" else f"{days} days")
    button(at, "Create token").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [c.value for c in at.code if str(c.value).startswith("rd_")]
    assert len(shown) == 1, f"the new token is shown once: {[c.value for c in at.code]}"
    return shown[0]


def _page_holds(at, secret: str) -> bool:
    everything = texts(at) + "".join(str(c.value) for c in at.code)
    return secret in everything


def test_a_user_makes_a_token_sees_it_once_and_it_works(engine):
    at = sign_up(new_app(), "alice")
    token = _create(at, "wiki bot", days="30")
    assert "it is shown only this once" in texts(at)
    assert engine.actor_for_api_token(token, client="test").name == "alice"
    [view] = engine.list_api_tokens(engine.actor_for(at.session_state["user_id"]))
    assert view.label == "wiki bot" and view.expires_at is not None
    assert (view.expires_at - view.created_at).days == 30
    # nothing on the page's side keeps it: neither session state nor the next run
    assert not any(token in repr(v) for v in at.session_state.values())
    at.run()
    assert not _page_holds(at, token)
    assert "**wiki bot** · `" + view.prefix + "…`" in texts(at)


def test_revoke_asks_first_then_the_token_stops(engine):
    at = sign_up(new_app(), "alice")
    token = _create(at, "laptop", days="never")
    [view] = engine.list_api_tokens(engine.actor_for(at.session_state["user_id"]))
    assert view.expires_at is None
    at.button(key=f"api_revoke_{view.id}").click()
    at.run()
    assert "Programs using it stop working at once" in texts(at)
    at.button(key=f"api_revoke_no_{view.id}").click()  # cancelled: still works
    at.run()
    assert engine.actor_for_api_token(token, client="test").name == "alice"
    at.button(key=f"api_revoke_{view.id}").click()
    at.run()
    at.button(key=f"api_revoke_yes_{view.id}").click()
    at.run()
    assert "Token “laptop” revoked." in texts(at) and "No API tokens yet." in texts(at)
    with pytest.raises(NotAuthenticated):
        engine.actor_for_api_token(token, client="test")


def test_each_user_sees_only_their_own_tokens(engine):
    alice = sign_up(new_app(), "alice")
    _create(alice, "alice's bot")
    bob = sign_up(new_app(), "bob")
    assert "No API tokens yet." in texts(bob) and "alice's bot" not in texts(bob)
    assert not [b for b in bob.button if (b.key or "").startswith("api_revoke_")]


def test_a_bad_label_is_refused_with_its_reason_and_nothing_is_made(engine):
    at = sign_up(new_app(), "alice")
    at.sidebar.text_input(key="api_token_label").input("bot\u202e")
    button(at, "Create token").click()
    at.run()
    assert "contains" in "\n".join(e.value for e in at.error)
    assert not [c for c in at.code if str(c.value).startswith("rd_")]
    assert engine.list_api_tokens(engine.actor_for(at.session_state["user_id"])) == []


def test_the_tokens_panel_speaks_chinese(engine):
    at = sign_up(new_app(), "alice")
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    assert "还没有 API 令牌。" in texts(at)
    assert [b for b in at.button if b.label == "创建令牌"]
    assert at.sidebar.selectbox(key="api_token_days_zh").options == ["30 天", "90 天", "365 天", "永不过期"]
