"""What every page starts with: the shared engine and the signed-in actor."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.auth import current_actor
from dashboard.runtime import get_engine


def page_context() -> tuple[Engine, Actor]:
    engine = get_engine()
    actor = current_actor(engine)
    if actor is None:  # app.py shows the sign-in screen; a page never runs signed out
        st.stop()
    return engine, actor


def choose_kb(engine: Engine, actor: Actor, key: str = "kb_id", label: str = ""):
    """A knowledge-base picker remembered across pages; None when there are none."""
    kbs = engine.list_kbs(actor)
    if not kbs:
        return None
    ids = [kb.id for kb in kbs]
    by_id = {kb.id: kb for kb in kbs}
    remembered = st.session_state.get("selected_kb")
    index = ids.index(remembered) if remembered in ids else 0
    chosen = st.selectbox(label or "KB", ids, index=index, key=key,
                          format_func=lambda i: f"{by_id[i].name} ({by_id[i].visibility})")
    st.session_state["selected_kb"] = chosen
    return by_id[chosen]


def fmt_score(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def fmt_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
