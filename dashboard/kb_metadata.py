"""The Knowledge Bases page's "Metadata" tab: the fields (define, delete), one file's values, a CSV
of values. The engine checks who may change them (the owner or an admin); this only hides forms."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.errors import CoreError
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import t
from dashboard.kb_manage import can_write
from dashboard.uploads import csv_limit_mb

KINDS = ("text", "number", "date", "tags")


def metadata_panel(engine: Engine, actor: Actor, kb, files: list) -> None:
    st.caption(t("meta.intro"))
    # drawn every run (the forms below keep their place) and kept until the next action: a rerun from
    # elsewhere must not wipe a confirmation before it is read
    with st.container(key="meta_notices"):
        for message in st.session_state.get("meta_notices", []):
            st.success(message, icon=":material/check_circle:")
        for message in st.session_state.get("meta_errors", []):
            st.error(message, icon=":material/error:")
    fields = engine.metadata_fields(actor, kb.id)
    st.dataframe([{t("meta.name"): f.name, t("meta.kind"): f.kind, t("meta.auto"): f.auto} for f in fields],
                 hide_index=True, width="stretch", key="meta_fields_table")
    own = [f for f in fields if not f.auto]
    if not can_write(actor, kb):
        st.caption(t("meta.read_only"))
        return
    _field_forms(engine, actor, kb, own)
    _values_form(engine, actor, own, [f for f in files if f.status == "indexed"])
    _import_form(engine, actor, kb)


def _done(message: str, errors: list[str] | None = None) -> None:
    st.session_state["meta_notices"], st.session_state["meta_errors"] = [message], errors or []
    st.rerun()


def _field_forms(engine: Engine, actor: Actor, kb, own: list) -> None:
    with st.form(f"meta_add_{kb.id}", clear_on_submit=True):
        name = st.text_input(t("meta.new_name"), key="meta_field_name")
        kind = st.selectbox(t("meta.kind"), KINDS, key="meta_field_kind")
        if st.form_submit_button(t("meta.add"), icon=":material/add:"):
            try:
                made = engine.define_metadata_field(actor, kb.id, name, kind)
            except CoreError as exc:
                show_error(exc)
            else:
                _done(t("meta.added", name=made.name))
    if own:
        with st.form(f"meta_delete_{kb.id}"):
            name = st.selectbox(t("meta.delete_pick"), [f.name for f in own], key="meta_delete_pick")
            if st.form_submit_button(t("meta.delete"), icon=":material/delete:"):
                try:
                    engine.delete_metadata_field(actor, kb.id, name)
                except CoreError as exc:
                    show_error(exc)
                else:
                    _done(t("meta.deleted", name=name))


def _shown(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "|".join(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)[:10] if isinstance(value, str) and value.endswith("T00:00:00Z") else str(value)


def _values_form(engine: Engine, actor: Actor, own: list, files: list) -> None:
    if not own:
        return
    if not files:
        st.info(t("meta.no_files"))
        return
    names = {f.id: f.name for f in files}
    file_id = st.selectbox(t("meta.file"), list(names), format_func=names.get, key="meta_file")
    current = engine.file_metadata(actor, file_id).values
    with st.form(f"meta_values_{file_id}"):
        typed = {f.name: st.text_input(f"{f.name} ({f.kind})", value=_shown(current.get(f.name)),
                                       key=f"meta_value_{f.name}", help=t("meta.value_help")) for f in own}
        if st.form_submit_button(t("meta.save"), type="primary", icon=":material/save:"):
            try:
                engine.set_file_metadata(actor, file_id, {k: (v.strip() or None) for k, v in typed.items()})
            except CoreError as exc:
                show_error(exc)
            else:
                _done(t("meta.saved", name=names[file_id]))


def _import_form(engine: Engine, actor: Actor, kb) -> None:
    with st.form(f"meta_import_{kb.id}", clear_on_submit=True):
        limit = csv_limit_mb(engine)  # the engine takes 20 MB of CSV at most, like curated answers
        upload = st.file_uploader(t("meta.csv"), type=["csv"], key="meta_csv", max_upload_size=limit)
        st.caption(t("kbs.upload_limit", mb=limit))
        if st.form_submit_button(t("meta.import"), icon=":material/upload:") and upload is not None:
            try:
                report = engine.import_metadata_csv(actor, kb.id, upload.getvalue())
            except CoreError as exc:
                show_error(exc)
            else:
                _done(t("meta.imported", n=report.updated),
                      [t("meta.line", line=e.line, message=e.message) for e in report.errors])
