"""Documents Settings (admins): every section with help and validation, template preview,
strict mode, LLM connection test, reindex offer after chunking/embedding changes."""

import streamlit as st

from core.settings import model as m
from dashboard import jobs_panel
from dashboard.auth import require_admin
from dashboard.errors import guard
from dashboard.gdrive_settings import gdrive_tab
from dashboard.i18n import t
from dashboard.page import page_context
from dashboard.settings_form import feedback_panel, section_form, template_preview
from dashboard.users_panel import users_panel

engine, actor = page_context()
st.title(t("nav.settings"))
require_admin(actor)

# Messages in one keyed container drawn on every run: the tabs below keep their place in the
# page, so the browser keeps the tab the admin was on (a shifted st.tabs opens its first tab).
notices = st.container(key="settings_notices")
saved = st.session_state.pop("settings_saved", None)
if saved:
    section, fields = saved
    notices.success(t("settings.saved_fields", section=t(f"settings.section.{section}"), fields=", ".join(fields)))
if st.session_state.get("reindex_offer"):
    with guard(), notices.container(border=True):
        st.warning(t("settings.reindex_needed"))
        kbs = [kb for kb in engine.list_kbs(actor) if kb.collection]
        c1, c2 = st.columns(2)
        if c1.button(t("settings.reindex_all", n=len(kbs)), icon=":material/autorenew:", disabled=not kbs):
            for kb in kbs:
                jobs_panel.track("reindex", kb.id, engine.submit_reindex(actor, kb.id), kb_name=kb.name)
            st.session_state.pop("reindex_offer")
            st.success(t("settings.reindex_started"))
        if c2.button(t("settings.reindex_later")):
            st.session_state.pop("reindex_offer")
            st.rerun()

SECTIONS = [("strict", m.StrictModeSettings), ("llm", m.LLMSettings), ("answering", m.AnsweringSettings),
            ("retrieval", m.RetrievalSettings), ("retrieval.reranker", m.RerankerSettings),
            ("chunking", m.ChunkingSettings), ("embedding", m.EmbeddingSettings), ("parsing", m.ParsingSettings),
            ("web_search", m.WebSearchSettings), ("curated", m.CuratedSettings)]
# Sections grouped in a few tabs that fit one row (on a phone too); a section not listed here
# (added later) gets the "more" tab.
GROUPS = {"strict": "answers", "llm": "answers", "answering": "answers", "retrieval": "search",
          "retrieval.reranker": "search", "chunking": "documents", "embedding": "documents", "parsing": "documents",
          "web_search": "search", "curated": "answers"}
group_names = list(dict.fromkeys([GROUPS.get(path, "more") for path, _ in SECTIONS]))
tabs = st.tabs([t(f"settings.group.{g}") for g in group_names] + [t("settings.section.gdrive"), t("settings.section.users"),
                                                                   t("settings.group.feedback")],
               key="settings_tab", on_change="rerun")  # tracked: a save's rerun comes back to the same tab
with tabs[-3], guard():
    gdrive_tab(engine, actor)  # issue 12: Google Drive set-up (dashboard/gdrive_settings.py)
with tabs[-2], guard():
    users_panel(engine, actor)
with tabs[-1], guard():
    feedback_panel(engine, actor)
for path, model in SECTIONS:
    with tabs[group_names.index(GROUPS.get(path, "more"))], guard(), st.container(border=True):
        st.subheader(t(f"settings.section.{path}"))
        st.caption(t(f"settings.about.{path}"))
        values = section_form(engine, actor, path, model)
        if path == "answering":
            template_preview(values["rag_template"])
        if path == "llm":
            warning = engine.context_warning()
            if warning:
                st.warning(warning)
            if st.button(t("settings.test_llm"), icon=":material/network_check:", key="test_llm"):
                with st.spinner(t("settings.testing")):
                    st.success(engine.test_llm(actor))
