"""File Manager: every file the user may see (admins: all), filters, bulk delete with
confirmation (embeddings go too), and the storage audit (the engine's doctor, admins)."""

import streamlit as st

from dashboard.errors import guard
from dashboard.files_widgets import bulk_delete, file_rows, filters, show_last_delete, storage_audit
from dashboard.i18n import t
from dashboard.page import page_context

engine, actor = page_context()
st.title(t("nav.files"))

with guard():
    show_last_delete()
    kbs = {kb.id: kb.name for kb in engine.list_kbs(actor)}
    files = engine.list_files(actor)
    shown = filters(files, kbs)
    st.caption(t("files.count", shown=len(shown), total=len(files)))
    selected = file_rows(shown, kbs)
    bulk_delete(engine, actor, selected)

if actor.is_admin:
    st.divider()
    with guard():
        storage_audit(engine, actor)
