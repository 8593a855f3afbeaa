"""Admins: everyone's role, disable/enable an account, reset a password (the engine checks each)."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.errors import CoreError
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import lang_key, t, worded

ROLES = ("user", "admin")


def users_panel(engine: Engine, actor: Actor) -> None:
    st.caption(t("users.help"))
    done = st.session_state.pop("users_done", None)
    if done:
        st.success(done)
    for user in engine.list_users(actor):
        with st.container(horizontal=True, vertical_alignment="center", key=f"user_row_{user.id}"):
            label = f"**{user.name}**" + (f" · {user.email}" if user.email else "")
            st.markdown(label + (f" · :orange[{t('users.disabled')}]" if user.disabled else ""), width="stretch")
            role = st.selectbox(t("users.role"), ROLES, index=ROLES.index(user.role), key=lang_key(f"role_{user.id}"),
                                format_func=worded(ROLES, lambda r: t(f"role.{r}")), label_visibility="collapsed",
                                width=160)
            if user.id != actor.user_id:
                toggle = t("users.enable") if user.disabled else t("users.disable")
                if st.button(toggle, key=f"disable_{user.id}",
                             icon=":material/person_check:" if user.disabled else ":material/person_off:"):
                    _act(t("users.enabled_done" if user.disabled else "users.disabled_done", name=user.name),
                         engine.set_user_disabled, actor, user.name, not user.disabled)
                if user.has_password:
                    _reset_popover(engine, actor, user)
        if role != user.role:
            _act(t("users.role_changed", name=user.name, role=t(f"role.{role}")), engine.set_role, actor, user.name, role)


def _reset_popover(engine: Engine, actor: Actor, user) -> None:
    with st.popover(t("users.reset_password"), icon=":material/lock_reset:"), \
            st.form(f"reset_{user.id}", clear_on_submit=True):
        new = st.text_input(t("users.new_password", name=user.name), type="password", key=f"reset_pw_{user.id}",
                            help=t("auth.password_rule"))
        if st.form_submit_button(t("users.reset_password"), type="primary"):
            _act(t("users.reset_done", name=user.name), engine.reset_password, actor, user.name, new)


def _act(message: str, action, *args) -> None:
    """Run one engine call; on success say so after the rerun that redraws the list."""
    try:
        action(*args)
    except CoreError as exc:
        show_error(exc)
        return
    st.session_state["users_done"] = message
    st.rerun()
