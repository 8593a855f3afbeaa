"""The assistant picker (Chat, Strict A/B): a named preset of knowledge bases, mode, thresholds, prompt,
refusal text and metadata filter (core/assistants/). Picked, it replaces the knowledge-base selection
and the filter box; the engine applies the preset, keeps the global strict policy and never widens
what the user may read."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.filter_box import written
from dashboard.i18n import t


def assistant_picker(engine: Engine, actor: Actor, key: str = "chat_assistant") -> str | None:
    """The picked assistant's id, or None (no assistant, or none the user may use)."""
    assistants = {a.id: a for a in engine.list_assistants(actor)}
    if not assistants:
        return None
    chosen = st.selectbox(t("assistants.pick"), ["", *assistants], key=key,
                          format_func=lambda i: assistants[i].name if i else t("assistants.none"))
    if not chosen or chosen not in assistants:
        return None
    a = assistants[chosen]
    kbs = ", ".join(a.kbs) if a.kbs else t("assistants.all_kbs")
    st.caption(t("assistants.caption", kbs=kbs, mode=t(f"assistants.mode.{a.mode}")))
    if a.where:  # its filter replaces the page's filter box
        st.caption(t("assistants.filter", where=written(a.where)))
    if a.hidden_kbs:
        st.caption(t("assistants.hidden", n=a.hidden_kbs))
    return chosen
