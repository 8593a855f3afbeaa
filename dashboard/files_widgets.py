"""File Manager widgets: filters, a selectable table, bulk delete, storage audit."""

from __future__ import annotations

from dataclasses import asdict

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.i18n import t, worded
from dashboard.messages import said
from dashboard.page import file_state, fmt_size, fmt_type

STATUSES = ("indexed", "processing", "failed", "refused", "cancelled", "pending")  # as file_state names them


def filters(files: list, kbs: dict[str, str]) -> list:
    c1, c2, c3 = st.columns([2, 2, 3])
    kb_choice = c1.multiselect(t("files.filter_kb"), list(kbs), format_func=kbs.get, key="fm_kb",
                               placeholder=t("common.choose_many"))
    status_choice = c2.multiselect(t("files.filter_status"), STATUSES, key="fm_status",
                                   format_func=worded(STATUSES, lambda s: t(f"status.{s}")),
                                   placeholder=t("common.choose_many"))
    name = c3.text_input(t("files.filter_name"), key="fm_name").strip().lower()
    return [f for f in files
            if (not kb_choice or f.kb_id in kb_choice)
            and (not status_choice or file_state(f) in status_choice)
            and (not name or name in f.name.lower())]


def can_delete(actor: Actor, f, kb_owner: dict[str, str]) -> bool:
    """What the engine allows: admins; the knowledge base's owner; the owner of a chat's file."""
    if actor.is_admin:
        return True
    if f.kb_id:
        return kb_owner.get(f.kb_id) == actor.user_id
    return f.owner_id == actor.user_id


def _row(f, kbs: dict[str, str]) -> dict:
    return {
        t("col.file"): f.name,
        t("col.kb"): kbs.get(f.kb_id or "", t("files.chat_file") if f.chat_id else "—"),
        t("col.status"): t(f"status.{file_state(f)}"),
        t("col.type"): fmt_type(f.mime),
        t("col.size"): fmt_size(f.size),
        t("col.chunks"): f.chunk_count,
        t("col.vectors"): f.chunk_count if f.status == "indexed" else 0,
        t("col.updated"): f.updated_at.strftime("%Y-%m-%d %H:%M"),
        t("col.error"): said(f.error, f.error_key, f.error_params),  # last: often empty, and long when not
    }


def file_rows(files: list, kbs: dict[str, str], deletable: bool) -> list:
    """The table; with ``deletable``, a selection column, and the selected files are returned."""
    if not files:
        return []
    if not deletable:
        st.dataframe([_row(f, kbs) for f in files], hide_index=True, width="stretch")
        return []
    rows = [{t("col.select"): False} | _row(f, kbs) for f in files]
    # A new key after each delete starts a fresh selection (an editor's state can't be assigned).
    edited = st.data_editor(rows, hide_index=True, width="stretch", key=f"fm_table_{st.session_state.get('fm_gen', 0)}",
                            disabled=[k for k in rows[0] if k != t("col.select")])
    return [f for f, row in zip(files, edited) if row[t("col.select")]]


def bulk_delete(engine: Engine, actor: Actor, selected: list) -> None:
    if not selected:
        st.caption(t("files.select_hint"))
        return
    st.warning(t("files.delete_warning", n=len(selected)))
    confirm = st.checkbox(t("files.delete_confirm", n=len(selected)), key="fm_confirm")
    if st.button(t("files.delete", n=len(selected)), type="primary", disabled=not confirm,
                 icon=":material/delete:", key="fm_delete"):
        names = {f.id: f.name for f in selected}
        results = engine.delete_files(actor, [f.id for f in selected])
        deleted = [names.get(r.file_id or "", r.name) for r in results if r.status == "deleted"]
        # the engine names a file it could not touch by its id: say its name
        failed = [(names.get(r.file_id or "", r.name), r.error) for r in results if r.status != "deleted"]
        st.session_state["fm_result"] = (deleted, failed)
        st.session_state["fm_gen"] = st.session_state.get("fm_gen", 0) + 1
        st.session_state.pop("fm_confirm", None)
        st.rerun()


def show_last_delete() -> None:
    """One message: green when everything went, amber when some did not, red when nothing did."""
    result = st.session_state.pop("fm_result", None)
    if not result:
        return
    deleted, failed = result
    lines = [f"- **{name}**: {error}" for name, error in failed]
    if not failed:
        st.success(t("files.deleted", n=len(deleted), names=", ".join(deleted)), icon=":material/check_circle:")
    elif deleted:
        st.warning(t("files.deleted_some", n=len(deleted), names=", ".join(deleted), m=len(failed)) + "\n\n"
                   + "\n".join(lines), icon=":material/warning:")
    else:
        st.error(t("files.deleted_none", m=len(failed)) + "\n\n" + "\n".join(lines), icon=":material/error:")


def _check_name(field: str) -> str:
    """An audit check in words; a check added later without a label still reads as words."""
    text = t(f"audit.{field}")
    return field.replace("_", " ").capitalize() if text == f"audit.{field}" else text


def storage_audit(engine: Engine, actor: Actor) -> None:
    st.subheader(t("audit.title"))
    st.caption(t("audit.help"))
    with st.container(horizontal=True):
        run = st.button(t("audit.run"), icon=":material/health_and_safety:", key="audit_run")
        repair = st.button(t("audit.repair"), icon=":material/build:", key="audit_repair")
    if repair:  # a repair is long work: a job on the queue (this page waits for its report)
        with st.spinner(t("audit.repair")):
            st.session_state["audit"] = engine.submit_repair(actor).result()
    elif run:
        st.session_state["audit"] = engine.doctor(actor)
    report = st.session_state.get("audit")
    if report is None:
        return
    if report.repaired:
        st.success(t("audit.repaired"))
    elif report.healthy:
        st.success(t("audit.healthy"))
    else:
        st.warning(t("audit.problems"))
    data = asdict(report)
    st.dataframe([{t("audit.kind"): _check_name(k), t("audit.count"): len(v), t("audit.items"): ", ".join(map(str, v))[:500]}
                  for k, v in data.items() if isinstance(v, (list, dict)) and k != "notes"],
                 hide_index=True, width="stretch")
    for note in report.notes:
        st.caption(note)
