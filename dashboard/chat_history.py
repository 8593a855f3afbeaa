"""The chat sidebar: new chat, the temporary switch (with a warning before it discards a
conversation), history with dates and search, rename, delete with confirmation, export."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.i18n import t
from dashboard.page import close_sidebar_on_phone

CONFIRM_LEAVE_TEMP = "confirm_leave_temporary"


def open_chat(chat_id: str | None) -> None:
    # A callback runs before the widgets are drawn, so it may reset the temporary switch.
    close_sidebar_on_phone()  # the chat is what the user wants to see now
    if chat_id:
        st.session_state["chat_id"] = chat_id
    else:
        st.session_state.pop("chat_id", None)
    st.session_state["temporary"] = False
    st.session_state["temp_answers"] = []
    st.session_state.pop(CONFIRM_LEAVE_TEMP, None)


def _temporary_changed() -> None:
    """Turning the switch off would drop the unsaved conversation: ask first."""
    if not st.session_state.get("temporary") and st.session_state.get("temp_answers"):
        st.session_state["temporary"] = True
        st.session_state[CONFIRM_LEAVE_TEMP] = True


def _discard_temporary() -> None:
    open_chat(None)


def _keep_temporary() -> None:
    st.session_state.pop(CONFIRM_LEAVE_TEMP, None)


def temporary_switch() -> None:
    st.toggle(t("chat.temporary"), key="temporary", help=t("chat.temporary_help"), on_change=_temporary_changed)
    if st.session_state.get(CONFIRM_LEAVE_TEMP):
        st.warning(t("chat.temporary_leave", n=len(st.session_state.get("temp_answers", []))))
        c1, c2 = st.columns(2)
        c1.button(t("chat.temporary_discard"), key="temp_discard", on_click=_discard_temporary, type="primary")
        c2.button(t("chat.temporary_keep"), key="temp_keep", on_click=_keep_temporary)


def _chat_actions(engine: Engine, actor: Actor, chat, current: bool) -> None:
    with st.popover("", icon=":material/more_vert:", help=t("chat.actions")):
        title = st.text_input(t("chat.rename"), value=chat.title, key=f"rename_{chat.id}")
        if st.button(t("common.save"), key=f"rename_save_{chat.id}", icon=":material/edit:"):
            engine.rename_chat(actor, chat.id, title)
            st.rerun()
        st.download_button(t("chat.export"), lambda: engine.export_chat_markdown(actor, chat.id).encode("utf-8"),
                           file_name=f"chat-{chat.created_at:%Y%m%d-%H%M}.md", mime="text/markdown",
                           icon=":material/download:", key=f"export_{chat.id}", on_click="ignore")
        st.divider()
        sure = st.checkbox(t("chat.delete_confirm"), key=f"del_chat_sure_{chat.id}")
        if st.button(t("chat.delete"), key=f"del_chat_{chat.id}", icon=":material/delete:", disabled=not sure,
                     type="primary"):
            engine.delete_chat(actor, chat.id)
            if current:
                st.session_state.pop("chat_id", None)
            st.toast(t("chat.deleted", title=chat.title or t("chat.untitled")))
            st.rerun()


def history(engine: Engine, actor: Actor) -> None:
    """Sidebar: new chat, temporary switch, searchable list of past chats with their dates."""
    with st.sidebar:
        st.divider()
        st.button(t("chat.new"), icon=":material/add_comment:", key="new_chat", width="stretch",
                  on_click=open_chat, args=(None,))
        temporary_switch()
        query = st.text_input(t("chat.search"), key="chat_search", placeholder=t("chat.search_hint"))
        chats = engine.list_chats(actor, query)
        if not chats:
            st.caption(t("chat.search_none", q=query) if query.strip() else t("chat.history_empty"))
        day = None
        for chat in chats:  # newest first, under the day they were last used
            if chat.updated_at.date() != day:
                day = chat.updated_at.date()
                st.caption(f"{day:%Y-%m-%d}")
            current = chat.id == st.session_state.get("chat_id")
            # a row that stays a row on a phone (columns stack there: the ⋮ fell onto a line of its own)
            with st.container(horizontal=True, wrap=False, vertical_alignment="center", gap="small"):
                st.button(chat.title or t("chat.untitled"), key=f"chat_{chat.id}", width="stretch",
                          help=f"{chat.updated_at:%Y-%m-%d %H:%M}", type="primary" if current else "secondary",
                          on_click=open_chat, args=(chat.id,))
                _chat_actions(engine, actor, chat, current)
