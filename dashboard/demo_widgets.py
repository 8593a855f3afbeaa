"""First run: "Load the demo" (the bundled bilingual handbook, core/demo) and what to do first."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.demo import load_demo
from core.types import Actor
from dashboard.i18n import t
from dashboard.page import select_kb_next


def load_demo_button(engine: Engine, actor: Actor, key: str) -> None:
    """Builds the demo knowledge base (two short handbooks: a few seconds, plus the embedding
    model's first load) and selects it; the A/B page then offers the demo question set."""
    if not st.button(t("demo.load"), icon=":material/auto_awesome:", type="primary", key=key, help=t("demo.help")):
        return
    with st.spinner(t("demo.loading")):
        result = load_demo(engine, actor)
    select_kb_next(result.kb_id)
    failed = [f"{r.name}: {r.error}" for r in result.files if not r.ok]
    st.session_state["demo_loaded"] = (result.kb_name, failed)
    st.rerun()


def demo_loaded_message() -> None:
    loaded = st.session_state.pop("demo_loaded", None)
    if loaded:
        name, failed = loaded
        if failed:
            st.error(t("demo.failed", errors="; ".join(failed)))
        else:
            st.success(t("demo.loaded", name=name), icon=":material/check_circle:")


def first_steps(engine: Engine, actor: Actor) -> None:
    """An empty install: say what to do first, with the two ways to get a knowledge base."""
    with st.container(border=True, key="first_steps"):
        st.markdown(f"### {t('demo.first_title')}")
        st.markdown(t("demo.first_body"))
        with st.container(horizontal=True):
            load_demo_button(engine, actor, key="demo_from_chat")
            st.page_link("../pages/knowledge_bases.py", label=t("demo.create_own"), icon=":material/add:")
