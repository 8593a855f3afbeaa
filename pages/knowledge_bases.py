"""Knowledge Bases: create (or load the demo), edit, share, delete; upload files and web pages
with progress; files with retry and download; chunks; retrieval test; reindex; charts."""

import streamlit as st

from dashboard import jobs_panel
from dashboard.demo_widgets import demo_loaded_message, load_demo_button
from dashboard.errors import guard
from dashboard.i18n import t
from dashboard.kb_curated import curated_panel
from dashboard.kb_files import chunk_inspector, file_table, upload_form
from dashboard.kb_insight import charts, reindex_panel, retrieval_test
from dashboard.kb_metadata import metadata_panel
from dashboard.kb_manage import can_write, create_form, edit_panel
from dashboard.page import NOT_INDEXED, choose_kb, page_context

engine, actor = page_context()
st.title(t("nav.kbs"))

with guard():
    # one-run messages in a container drawn on every run: the forms below keep their place in the
    # page whether or not a message shows (a moved form is a new one to the browser, and a file
    # picked in it, or a click on it, would be lost)
    with st.container(key="kb_notices"):
        demo_loaded_message()
        created = st.session_state.pop("kb_created", None)
        if created:
            st.success(t("kbs.created", name=created), icon=":material/check_circle:")
    empty = not engine.list_kbs(actor)
    with st.expander(t("kbs.new"), icon=":material/add:", expanded=empty):
        create_form(engine, actor)
    kb = choose_kb(engine, actor, label=t("kbs.choose"))
    if kb is None:
        st.info(t("kbs.none_yet"))
        load_demo_button(engine, actor, key="demo_from_kbs")
        st.stop()
    stats = engine.kb_stats(actor, kb.id)
    not_indexed = sum(stats["by_status"].get(s, 0) for s in NOT_INDEXED)  # failed, refused, cancelled: counted apart
    with st.container(horizontal=True, gap="large"):  # stays one row on a phone
        st.metric(t("kbs.files"), stats["files"] - not_indexed, width="content")
        for label, key in (("kbs.chunks", "chunks"), ("kbs.vectors", "vectors")):
            st.metric(t(label), stats[key], width="content")
        if not_indexed:
            st.metric(t("kbs.not_indexed"), not_indexed, width="content")
    if kb.description:
        st.caption(kb.description)
    writable = can_write(actor, kb)
    tabs = st.tabs([t("kbs.tab_files"), t("kbs.tab_chunks"), t("kbs.tab_rtest"), t("kbs.tab_index"),
                    t("kbs.tab_charts"), t("kbs.tab_curated"), t("kbs.tab_metadata"), t("kbs.tab_settings")])

files: list = []
with tabs[0], guard():
    if writable:
        upload_form(engine, actor, kb)
    jobs_panel.render_work(engine, actor, kb.id, "ingest")
    files = file_table(engine, actor, kb, writable)
with tabs[1], guard():
    chunk_inspector(engine, actor, files)
with tabs[2], guard():
    retrieval_test(engine, actor, kb)
with tabs[3], guard():
    reindex_panel(engine, actor, kb, writable)
with tabs[4], guard():
    charts(engine, actor, kb, files)
with tabs[5], guard():
    curated_panel(engine, actor, kb)
with tabs[6], guard():
    metadata_panel(engine, actor, kb, files)
with tabs[7], guard():
    edit_panel(engine, actor, kb)
