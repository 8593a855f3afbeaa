"""Admins: everyone's role (the first account is admin; promote or demote others here)."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.i18n import t

ROLES = ("user", "admin")


def users_panel(engine: Engine, actor: Actor) -> None:
    st.caption(t("users.help"))
    for user in engine.list_users(actor):
        c1, c2 = st.columns([3, 2], vertical_alignment="center")
        c1.markdown(f"**{user.name}**" + (f" · {user.email}" if user.email else ""))
        role = c2.selectbox(t("users.role"), ROLES, index=ROLES.index(user.role), key=f"role_{user.id}",
                            format_func=lambda r: t(f"role.{r}"), label_visibility="collapsed")
        if role != user.role:
            engine.set_role(actor, user.name, role)
            st.toast(t("users.role_changed", name=user.name, role=t(f"role.{role}")))
            st.rerun()
