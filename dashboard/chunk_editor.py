"""The File Manager's chunk editor: a file's chunks, each editable (text, keywords), disabled or
enabled, a chunk added by hand, and the edit history — for those who may write the file's
knowledge base; others read the chunks. The engine checks the actor on every call."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.files_widgets import can_delete
from dashboard.i18n import t

PAGE_SIZE = 20
_DONE = "ce_done"  # (file id, the last action's message): shown until the next action or another file


def _keywords(raw: str) -> list[str]:
    return [k.strip() for k in raw.split(",") if k.strip()]


def _label(c) -> str:
    marks = [t(f"chunks.state.{c.state}")] if c.state != "original" else []
    if c.disabled:
        marks.append(t("chunks.disabled"))
    text = " ".join(c.text.split())
    return f"#{c.chunk_index}" + (f" · {', '.join(marks)}" if marks else "") + f" · {text[:70]}{'…' if len(text) > 70 else ''}"


def _done(file_id: str, message: str) -> None:
    # kept, not popped: a rerun from elsewhere on the page (a panel refreshing, a busy server's late
    # rerun) must not wipe the confirmation before the person has read it
    st.session_state[_DONE] = (file_id, message)
    st.rerun()


def _chunk_form(engine: Engine, actor: Actor, file_id: str, c) -> None:
    key = f"ce_{file_id}_{c.chunk_index}"
    with st.form(key=f"{key}_form"):
        text = st.text_area(t("chunks.text"), c.text, key=f"{key}_text", height=150)
        keywords = st.text_input(t("chunks.keywords"), ", ".join(c.keywords), key=f"{key}_kw")
        if st.form_submit_button(t("chunks.save")):
            new_text = text if text.strip() != c.text.strip() else None
            new_keywords = _keywords(keywords) if _keywords(keywords) != list(c.keywords) else None
            if new_text is None and new_keywords is None:
                _done(file_id, t("chunks.unchanged"))
            engine.edit_chunk(actor, file_id, c.chunk_index, text=new_text, keywords=new_keywords)
            _done(file_id, t("chunks.saved", n=c.chunk_index))
    if c.disabled:
        if st.button(t("chunks.enable"), key=f"{key}_enable", icon=":material/visibility:"):
            engine.enable_chunk(actor, file_id, c.chunk_index)
            _done(file_id, t("chunks.enabled_done", n=c.chunk_index))
    elif st.button(t("chunks.disable"), key=f"{key}_disable", icon=":material/visibility_off:"):
        engine.disable_chunk(actor, file_id, c.chunk_index)
        _done(file_id, t("chunks.disabled_done", n=c.chunk_index))


def _add_form(engine: Engine, actor: Actor, file_id: str) -> None:
    with st.expander(t("chunks.add"), icon=":material/add:"):
        with st.form(key=f"ce_add_{file_id}", clear_on_submit=True):
            text = st.text_area(t("chunks.text"), key=f"ce_add_text_{file_id}")
            keywords = st.text_input(t("chunks.keywords"), key=f"ce_add_kw_{file_id}")
            if st.form_submit_button(t("chunks.add_button")):
                view = engine.add_chunk(actor, file_id, text, keywords=_keywords(keywords))
                _done(file_id, t("chunks.added", n=view.chunk_index))


def _history(engine: Engine, actor: Actor, file_id: str) -> None:
    with st.expander(t("chunks.history"), icon=":material/history:"):
        rows = engine.chunk_history(actor, file_id)
        if not rows:
            st.caption(t("chunks.no_history"))
            return
        st.dataframe([{t("chunks.col.when"): h.at.strftime("%Y-%m-%d %H:%M"), t("chunks.col.who"): h.actor_name,
                       t("chunks.col.action"): h.action, t("chunks.col.chunk"): f"#{h.chunk_index}",
                       t("chunks.col.note"): h.note} for h in rows], hide_index=True, use_container_width=True)


def chunk_editor(engine: Engine, actor: Actor, files: list, kbs: dict[str, str], owners: dict[str, str]) -> None:
    st.subheader(t("chunks.title"))
    indexed = {f.id: f for f in files if f.status == "indexed" and f.kb_id}
    if not indexed:
        st.caption(t("chunks.none"))
        return
    file_id = st.selectbox(t("chunks.file"), list(indexed), key="ce_file",
                           format_func=lambda i: f"{indexed[i].name} · {kbs.get(indexed[i].kb_id, '')}")
    done_in, done = st.session_state.get(_DONE, ("", ""))
    if done and done_in == file_id:
        st.success(done, icon=":material/check_circle:")
    writable = can_delete(actor, indexed[file_id], owners)
    st.caption(t("chunks.help") if writable else t("chunks.read_only"))
    listing = engine.list_chunks(actor, file_id)
    if listing.notice:
        st.warning(listing.notice)
    needle = st.text_input(t("chunks.filter"), key=f"ce_filter_{file_id}").strip().lower()
    chunks = [c for c in listing.chunks if not needle or needle in c.text.lower()
              or any(needle in k.lower() for k in c.keywords)]
    pages = max(1, -(-len(chunks) // PAGE_SIZE))
    page = st.number_input(t("chunks.page", n=pages), 1, pages, 1, key=f"ce_page_{file_id}") if pages > 1 else 1
    for c in chunks[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]:
        with st.expander(_label(c)):
            if c.original_text:
                st.caption(f"{t('chunks.original')}: {c.original_text}")
            if writable:
                _chunk_form(engine, actor, file_id, c)
            else:
                st.text(c.text)
                if c.keywords:
                    st.caption(f"{t('chunks.keywords')}: {', '.join(c.keywords)}")
    if writable:
        _add_form(engine, actor, file_id)
        _history(engine, actor, file_id)
