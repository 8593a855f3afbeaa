"""Google Drive: connect (OAuth consent, the redirect lands here), browse, import into a
knowledge base with progress, keep it in sync, sync log, disconnect."""

import streamlit as st

from dashboard import gdrive_sources as gs
from dashboard import gdrive_widgets as gw
from dashboard.errors import guard
from dashboard.i18n import t
from dashboard.page import page_context

engine, actor = page_context()
st.title(t("nav.gdrive"))

with guard():
    status = engine.gdrive_status(actor)
    if status["missing"]:
        gw.setup_missing(status, actor.is_admin)
        st.stop()
    gw.finish_redirect(engine, actor)
    status = engine.gdrive_status(actor)
    if not gw.connection_bar(engine, actor, status):
        gs.sources_panel(engine, actor, status, connected=False)  # watched sources stay listed: reconnect
        st.stop()
    st.caption(t("gdrive.strict_note"))
    browse_tab, sync_tab = st.tabs([t("gdrive.tab_browse"), t("gdrive.tab_sync")])

with browse_tab, guard():
    gw.work_panel(engine, actor, gw.IMPORT_KEY)
    entries = gw.browser(engine, actor)
    gw.import_form(engine, actor, entries)
with sync_tab, guard():
    gs.sources_panel(engine, actor, status)
