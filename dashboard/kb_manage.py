"""Knowledge-base create / edit / share / delete widgets."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.errors import CoreError
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import lang_key, t, worded
from dashboard.page import select_kb_next

VISIBILITIES = ("private", "shared", "public")


def can_write(actor: Actor, kb) -> bool:
    return actor.is_admin or kb.owner_id == actor.user_id


def create_form(engine: Engine, actor: Actor) -> None:
    with st.form("create_kb", clear_on_submit=True):
        name = st.text_input(t("kbs.name"), key="new_kb_name")
        description = st.text_area(t("kbs.description"), key="new_kb_description", height=68)
        visibility = st.selectbox(t("kbs.visibility"), VISIBILITIES,
                                  format_func=worded(VISIBILITIES, lambda v: t(f"vis.{v}")),
                                  key=lang_key("new_kb_visibility"))
        if st.form_submit_button(t("kbs.create"), type="primary", icon=":material/add:"):
            try:
                kb = engine.create_kb(actor, name, description, visibility)
            except CoreError as exc:
                show_error(exc)
            else:
                select_kb_next(kb.id)
                st.session_state["kb_created"] = kb.name
                st.rerun()


def edit_panel(engine: Engine, actor: Actor, kb) -> None:
    if not can_write(actor, kb):
        st.info(t("kbs.read_only"))
        return
    with st.form(f"edit_{kb.id}"):
        name = st.text_input(t("kbs.name"), value=kb.name)
        description = st.text_area(t("kbs.description"), value=kb.description, height=68)
        visibility = st.selectbox(t("kbs.visibility"), VISIBILITIES, index=VISIBILITIES.index(kb.visibility),
                                  format_func=worded(VISIBILITIES, lambda v: t(f"vis.{v}")))
        full_doc = st.toggle(t("kbs.full_document"), value=kb.full_document, help=t("kbs.full_document_help"))
        if st.form_submit_button(t("common.save"), icon=":material/save:"):
            engine.update_kb(actor, kb.id, name=name, description=description, visibility=visibility,
                             full_document=full_doc)
            st.toast(t("common.saved"))
            st.rerun()
    _chunking_form(engine, actor, kb)
    _share_form(engine, actor, kb)
    _delete_form(engine, actor, kb)


def _chunking_form(engine: Engine, actor: Actor, kb) -> None:
    """This knowledge base's own chunk size / overlap / min-size target and token vectors; a reindex applies it."""
    own = kb.chunking_override or {}
    current = engine.kb_chunking(kb)
    with st.form(f"chunking_{kb.id}"):
        st.markdown(f"**{t('kbs.chunking')}**")
        st.caption(t("kbs.chunking_help"))
        custom = st.toggle(t("kbs.chunking_own"), value=bool(own), key=f"chunk_own_{kb.id}")
        c1, c2, c3 = st.columns(3)
        size = c1.number_input(t("kbs.chunk_size"), 50, 100_000, current.chunk_size, step=50, key=f"cs_{kb.id}")
        overlap = c2.number_input(t("kbs.chunk_overlap"), 0, 100_000, current.chunk_overlap, step=10, key=f"co_{kb.id}")
        min_size = c3.number_input(t("kbs.chunk_min"), 0, 100_000, current.chunk_min_size_target, step=50,
                                   key=f"cm_{kb.id}")
        tokens = st.toggle(t("kbs.token_vectors"), value=current.token_vectors, help=t("kbs.token_vectors_help"),
                           key=f"ct_{kb.id}")
        if st.form_submit_button(t("common.save"), icon=":material/save:"):
            override = {"chunk_size": int(size), "chunk_overlap": int(overlap), "chunk_min_size_target": int(min_size),
                        "token_vectors": bool(tokens)}
            try:
                engine.set_kb_chunking(actor, kb.id, override if custom else {})
            except CoreError as exc:
                show_error(exc)
            else:
                st.toast(t("kbs.chunking_saved"))
                st.rerun()


def _share_form(engine: Engine, actor: Actor, kb) -> None:
    others = engine.share_candidates(actor, kb.id)  # names only: a plain owner may not list the accounts
    current = [n for n in engine.shared_with(actor, kb.id) if n in others]
    with st.form(f"share_{kb.id}"):
        chosen = st.multiselect(t("kbs.share_with"), others, default=current, help=t("kbs.share_help"),
                                key=f"share_{kb.id}_users", placeholder=t("common.choose_many"))
        if st.form_submit_button(t("kbs.share"), icon=":material/group_add:"):
            engine.share_kb(actor, kb.id, chosen)
            st.toast(t("common.saved"))
            st.rerun()


def _delete_form(engine: Engine, actor: Actor, kb) -> None:
    with st.expander(t("kbs.delete"), icon=":material/delete:"):
        st.warning(t("kbs.delete_warning"))
        typed = st.text_input(t("kbs.delete_confirm", name=kb.name), key=f"del_confirm_{kb.id}")
        if st.button(t("kbs.delete"), type="primary", disabled=typed.strip() != kb.name, key=f"del_{kb.id}"):
            engine.delete_kb(actor, kb.id)
            st.session_state.pop("selected_kb", None)
            st.session_state.pop("kb_id", None)
            st.toast(t("kbs.deleted", name=kb.name))
            st.rerun()
