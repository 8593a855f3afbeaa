"""Sign-up, sign-in, roles, admin-only pages and other users' data, languages."""

from __future__ import annotations

from tests.dashboard.conftest import button, goto, new_app, sign_in, sign_up, texts


def _sidebar(at) -> str:
    return "\n".join(str(m.value) for m in at.sidebar.markdown)


def test_first_account_is_admin_second_is_user(engine):
    at = sign_up(new_app(), "alice")
    assert "**alice** · admin" in _sidebar(at)
    bob = sign_up(new_app(), "bob")
    assert "**bob** · user" in _sidebar(bob)
    roles = {u.name: u.role for u in engine.list_users(engine.actor_for(engine.sign_in("alice", "correct horse 1").id))}
    assert roles == {"alice": "admin", "bob": "user"}


def test_wrong_password_is_refused_with_a_message(engine):
    sign_up(new_app(), "alice")
    at = sign_in(new_app(), "alice", "not the password")
    assert "wrong user name or password" in texts(at)
    assert "user_id" not in at.session_state
    assert not at.exception


def test_sign_in_then_sign_out(engine):
    sign_up(new_app(), "alice")
    at = sign_in(new_app(), "alice")
    assert "**alice** · admin" in _sidebar(at)
    button(at, "Sign out").click()
    at.run()
    assert "user_id" not in at.session_state
    assert [b.label for b in at.button] == ["Sign in", "Create account"]


def test_short_password_gets_the_engine_message(engine):
    at = new_app()
    at.text_input(key="signup_name").input("carol")
    at.text_input(key="signup_password").input("short")
    at.text_input(key="signup_password2").input("short")
    button(at, "Create account").click()
    at.run()
    assert "at least 8 characters" in texts(at)
    assert engine.user_count() == 0


def test_non_admin_is_refused_documents_settings(engine):
    admin = goto(sign_up(new_app(), "alice"), "settings")
    assert "administrators" not in texts(admin)
    assert any(b.label == "Save" for b in admin.button)
    user = goto(sign_up(new_app(), "bob"), "settings")
    assert "This page is for administrators" in texts(user)
    assert not any(b.label == "Save" for b in user.button)  # nothing of the form is drawn


def test_other_users_private_kb_is_invisible(engine):
    alice = goto(sign_up(new_app(), "alice"), "kbs")
    alice.text_input(key="new_kb_name").input("alice-private")
    button(alice, "Create").click()
    alice.run()
    assert any("alice-private" in str(o) for o in alice.selectbox(key="kb_id").options)
    bob = goto(sign_up(new_app(), "bob"), "kbs")
    assert "No knowledge base yet" in texts(bob)
    goto(bob, "chat")
    assert bob.multiselect(key="chat_kbs").options == []
    goto(bob, "ab")  # the A/B page is for admins (strict.compare_roles): it says so, no picker
    assert not [m for m in bob.multiselect if m.key == "ab_kbs"]
    goto(alice, "ab")
    assert [str(o) for o in alice.multiselect(key="ab_kbs").options] == ["alice-private"]


def test_language_switch_renders_chinese(engine):
    at = sign_up(new_app(), "alice")
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    assert engine.user(at.session_state["user_id"]).language == "zh"
    assert "普通模式" in "\n".join(str(m.value) for m in at.markdown)
    assert any(b.label == "退出登录" for b in at.button)


def test_admin_promotes_a_user_who_then_reaches_settings(engine):
    admin = goto(sign_up(new_app(), "alice"), "settings")
    bob = goto(sign_up(new_app(), "bob"), "settings")
    assert "This page is for administrators" in texts(bob)
    admin.run()
    bob_id = bob.session_state["user_id"]
    admin.selectbox(key=f"role_{bob_id}.en").select("admin")
    admin.run()
    assert engine.user(bob_id).role == "admin"
    bob.run()
    assert "This page is for administrators" not in texts(bob)
    assert "**bob** · admin" in _sidebar(bob)
