"""Assistants: create, change and delete a named preset of knowledge bases, mode, thresholds, top-k,
prompt, refusal text and filter (issue 35), and see every assistant you may use. Picked in Chat and
on the Strict A/B page; the engine checks who asks and never widens what a caller may read."""

import streamlit as st

from dashboard.assistant_form import FLASH, assistant_form, delete_form, pick_assistant
from dashboard.errors import guard
from dashboard.filter_box import written
from dashboard.i18n import t
from dashboard.page import page_context

engine, actor = page_context()
st.title(t("nav.assistants"))

with guard():
    with st.container(key="assistant_notices"):  # drawn on every run: the form below keeps its place
        flash = st.session_state.pop(FLASH, None)
        if flash:
            st.success(flash, icon=":material/check_circle:")
    st.caption(t("assistants.page_help"))
    assistants = engine.list_assistants(actor)
    chosen = pick_assistant(assistants)
    assistant_form(engine, actor, chosen)
    if chosen is not None:
        delete_form(engine, actor, chosen)

with guard():
    st.subheader(t("assistants.usable"))
    if not assistants:
        st.info(t("assistants.none_yet"))
    else:
        st.dataframe([{t("assistants.name"): a.name, t("assistants.owner"): a.owner,
                       t("assistants.mode"): t(f"assistants.mode.{a.mode}"),
                       t("assistants.visibility"): t(f"vis.{a.visibility}"),
                       t("assistants.kbs"): ", ".join(a.kbs) if a.kbs else t("assistants.all_kbs"),
                       t("assistants.filter_field"): written(a.where) if a.where else ""} for a in assistants],
                     hide_index=True)
