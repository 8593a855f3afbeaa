"""The strip at the top of every page: the answering mode as a badge, always visible, and
what the engine runs on (embedder, LLM, vector store, strict thresholds)."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.i18n import LANGUAGE_NAMES, set_lang, t


def mode_badge(mode: str) -> None:
    if mode == "strict":
        st.badge(t("mode.strict"), icon=":material/lock:", color="red")
    else:
        st.badge(t("mode.normal"), icon=":material/lock_open:", color="green")


# Shared page styles: passages keep their line breaks and wrap on a phone; marks are readable;
# tab labels wrap onto a second row on a phone instead of scrolling out of sight ("用户与角…").
STYLE = """<style>
.ragdesk-passage{white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.6}
.ragdesk-passage mark{background:#fff3a3;color:inherit;padding:0 .1em;border-radius:.2em}
[data-testid=stTabs] [role=tablist]{flex-wrap:wrap;row-gap:.25rem}
.ragdesk-sheet{overflow-x:auto;max-width:100%}
.ragdesk-sheet table{border-collapse:collapse;font-size:.9em}
.ragdesk-sheet td,.ragdesk-sheet th{border:1px solid #ddd;padding:.2em .5em;white-space:nowrap}
.ragdesk-sheet tr.cited td{background:#fff3a3}
</style>"""


def thresholds_text(status: dict) -> str:
    """The thresholds chat uses now: the strict ones in strict mode, the normal ones otherwise."""
    if status["mode"] == "strict":
        return t("status.strict_thresholds", min=status["strict_min_similarity"], n=status["strict_max_results"])
    return t("status.normal_thresholds", min=status["min_similarity"], n=status["max_results"])


def render_header(engine: Engine) -> dict:
    status = engine.status()
    st.html(STYLE)
    llm = t("status.llm_extractive") if status.get("llm_provider") == "extractive" else status["llm"]
    store = t(f"status.store_{status['store_kind']}") if status.get("store_kind") else status["vector_store"]
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key="ragdesk_header"):
        mode_badge(status["mode"])
        st.caption(" · ".join([
            f"{t('status.embedder')}: {status['embedder']}",
            f"{t('status.llm')}: {llm}",
            f"{t('status.store')}: {store}",
            thresholds_text(status),
        ]))
    return status


def render_sidebar_account(engine: Engine, actor: Actor, on_sign_out) -> None:
    with st.sidebar:
        role = t("role.admin") if actor.is_admin else t("role.user")
        st.markdown(f"**{actor.name}** · {role}")
        codes = list(LANGUAGE_NAMES)
        current = st.session_state.get("lang", "en")
        choice = st.selectbox(t("common.language"), codes, index=codes.index(current) if current in codes else 0,
                              format_func=LANGUAGE_NAMES.get, key="user_lang")
        if choice != current:
            engine.set_language(actor, choice)
            set_lang(choice)
            st.rerun()
        if st.button(t("auth.sign_out"), icon=":material/logout:", key="sign_out"):
            on_sign_out()
            st.rerun()
