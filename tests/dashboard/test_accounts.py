"""Accounts on the pages: an admin disables, enables and resets a user; a user changes their
own password; a session revoked elsewhere signs the page out on its next run."""

from __future__ import annotations

from tests.dashboard.conftest import button, goto, new_app, sign_in, sign_up, texts


def _signed_in_as(at) -> str:
    return "\n".join(str(m.value) for m in at.sidebar.markdown)


def _submit(at, label: str) -> None:
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r}"
    matches[-1].click()
    at.run()


def test_admin_disables_a_signed_in_user_who_is_signed_out_then_enables(engine):
    admin = goto(sign_up(new_app(), "alice"), "settings")
    bob = sign_up(new_app(), "bob")
    bob_id = bob.session_state["user_id"]
    admin.run()
    admin.button(key=f"disable_{bob_id}").click()
    admin.run()
    assert "bob is disabled and signed out everywhere." in texts(admin)
    assert engine.user(bob_id).disabled
    bob.run()
    assert [b.label for b in bob.button] == ["Sign in", "Create account"]  # back at the sign-in screen
    refused = sign_in(new_app(), "bob")
    assert "this account is disabled" in texts(refused)
    admin.button(key=f"disable_{bob_id}").click()
    admin.run()
    assert not engine.user(bob_id).disabled
    assert "**bob** · user" in _signed_in_as(sign_in(new_app(), "bob"))


def test_admin_resets_a_password(engine):
    admin = goto(sign_up(new_app(), "alice"), "settings")
    bob_id = sign_up(new_app(), "bob").session_state["user_id"]
    admin.run()
    admin.text_input(key=f"reset_pw_{bob_id}").input("a new one 42")
    _submit(admin, "Reset password")
    assert "bob's password is reset" in texts(admin)
    assert "wrong user name or password" in texts(sign_in(new_app(), "bob"))
    assert "**bob** · user" in _signed_in_as(sign_in(new_app(), "bob", "a new one 42"))


def test_user_changes_own_password_and_stays_signed_in(engine):
    at = sign_up(new_app(), "alice")
    other_tab = sign_in(new_app(), "alice")
    at.sidebar.text_input(key="pw_old").input("wrong wrong 1")
    at.sidebar.text_input(key="pw_new").input("battery staple 2")
    at.sidebar.text_input(key="pw_new2").input("battery staple 2")
    _submit(at, "Change password")
    assert "current password is wrong" in texts(at)
    at.sidebar.text_input(key="pw_old").input("correct horse 1")
    at.sidebar.text_input(key="pw_new").input("battery staple 2")
    at.sidebar.text_input(key="pw_new2").input("battery staple 2")
    _submit(at, "Change password")
    assert "**alice** · admin" in _signed_in_as(at)  # this tab got a new session
    other_tab.run()
    assert [b.label for b in other_tab.button] == ["Sign in", "Create account"]  # the other one ended
    assert "**alice** · admin" in _signed_in_as(sign_in(new_app(), "alice", "battery staple 2"))


def test_repeated_failures_lock_the_name_with_a_retry_time(engine):
    sign_up(new_app(), "alice")
    at = new_app()
    for _ in range(5):
        sign_in(at, "alice", "guess guess 1")
    sign_in(at, "alice")  # the right password, too late
    assert "too many failed sign-ins: try again after" in texts(at)
    assert "user_id" not in at.session_state
    button(at, "Sign in")
