"""File Manager: every file the user may see (admins: all), filters, bulk delete with
confirmation (embeddings go too) for the files the user may delete, and the storage audit
(the engine's doctor, admins)."""

import streamlit as st

from dashboard.chunk_editor import chunk_editor
from dashboard.errors import guard
from dashboard.files_widgets import bulk_delete, can_delete, file_rows, filters, show_last_delete, storage_audit
from dashboard.i18n import t
from dashboard.page import page_context

engine, actor = page_context()
st.title(t("nav.files"))

with guard():
    show_last_delete()
    readable = engine.list_kbs(actor)
    kbs = {kb.id: kb.name for kb in readable}
    owners = {kb.id: kb.owner_id for kb in readable}
    files = engine.list_files(actor)
    shown = filters(files, kbs)
    st.caption(t("files.count", shown=len(shown), total=len(files)))
    if not shown:
        st.info(t("files.none"))
    mine = [f for f in shown if can_delete(actor, f, owners)]
    others = [f for f in shown if not can_delete(actor, f, owners)]
    selected = file_rows(mine, kbs, deletable=True)
    if mine:
        bulk_delete(engine, actor, selected)
    if others:  # shown, never offered for deletion
        st.markdown(f"**{t('files.read_only')}**")
        st.caption(t("files.read_only_help"))
        file_rows(others, kbs, deletable=False)

st.divider()
with guard():
    chunk_editor(engine, actor, shown, kbs, owners)

if actor.is_admin:
    st.divider()
    with guard():
        storage_audit(engine, actor)
