"""The Knowledge Bases page's "Curated answers" tab: list, add, delete, CSV import and export.
The engine checks who may change them (the owner or an admin); this only hides the forms."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.errors import CoreError
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import t
from dashboard.kb_manage import can_write
from dashboard.uploads import csv_limit_mb


def curated_panel(engine: Engine, actor: Actor, kb) -> None:
    st.caption(t("curated.intro"))
    with st.container(key="curated_notices"):  # drawn every run: the forms below keep their place
        for message in st.session_state.pop("curated_notices", []):
            st.success(message, icon=":material/check_circle:")
        for message in st.session_state.pop("curated_errors", []):
            st.error(message, icon=":material/error:")
    entries = engine.curated_answers(actor, kb.id)
    if entries:
        st.dataframe([{t("curated.question"): e.question, t("curated.answer"): e.answer,
                       t("curated.approved_by"): e.approved_by, t("curated.approved_at"): e.approved_at[:10]}
                      for e in entries], hide_index=True, width="stretch", key="curated_table")
    else:
        st.info(t("curated.none"))
    st.download_button(t("curated.export"), lambda: engine.export_curated_csv(actor, kb.id).encode("utf-8"),
                       f"curated-{kb.name}.csv", "text/csv", icon=":material/download:", on_click="ignore",
                       key="curated_export")
    if not can_write(actor, kb):
        st.caption(t("curated.read_only"))
        return
    _add_form(engine, actor, kb)
    if entries:
        _delete_form(engine, actor, entries)
    _import_form(engine, actor, kb)


def _add_form(engine: Engine, actor: Actor, kb) -> None:
    with st.form(f"curated_add_{kb.id}", clear_on_submit=True):
        question = st.text_input(t("curated.question"), key="curated_question")
        answer = st.text_area(t("curated.answer"), key="curated_answer", height=100)
        if st.form_submit_button(t("curated.add"), type="primary", icon=":material/add:"):
            try:
                engine.add_curated(actor, kb.id, question, answer)
            except CoreError as exc:
                show_error(exc)
            else:
                st.session_state["curated_notices"] = [t("curated.added")]
                st.rerun()


def _delete_form(engine: Engine, actor: Actor, entries: list) -> None:
    by_id = {e.id: e for e in entries}
    with st.form("curated_delete"):
        chosen = st.multiselect(t("curated.pick"), list(by_id), format_func=lambda i: by_id[i].question[:80],
                                placeholder=t("common.choose_many"), key="curated_pick")
        if st.form_submit_button(t("curated.delete"), icon=":material/delete:") and chosen:
            for entry_id in chosen:
                engine.delete_curated(actor, entry_id)
            st.session_state["curated_notices"] = [t("curated.deleted", n=len(chosen))]
            st.rerun()


def _import_form(engine: Engine, actor: Actor, kb) -> None:
    with st.form(f"curated_import_{kb.id}", clear_on_submit=True):
        limit = csv_limit_mb(engine)
        upload = st.file_uploader(t("curated.import"), type=["csv"], help=t("curated.import_help"), key="curated_csv",
                                  max_upload_size=limit)
        st.caption(t("kbs.upload_limit", mb=limit))
        if st.form_submit_button(t("curated.import_start"), icon=":material/upload:") and upload is not None:
            try:
                report = engine.import_curated_csv(actor, kb.id, upload.getvalue())
            except CoreError as exc:
                show_error(exc)
                return
            st.session_state["curated_notices"] = [t("curated.imported", added=report.added, updated=report.updated)]
            st.session_state["curated_errors"] = [t("curated.bad_row", line=e.line, message=e.message) for e in report.errors]
            st.rerun()
