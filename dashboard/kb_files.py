"""Upload, file list and chunk inspector for one knowledge base."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.ingest.service import Upload
from core.types import Actor
from dashboard import jobs_panel
from dashboard.i18n import t
from dashboard.page import fmt_size


def upload_form(engine: Engine, actor: Actor, kb) -> None:
    with st.form(f"upload_{kb.id}", clear_on_submit=True):
        files = st.file_uploader(t("kbs.upload"), accept_multiple_files=True, key=f"uploader_{kb.id}",
                                 help=t("kbs.upload_help"), max_upload_size=engine.settings().parsing.max_upload_mb)
        if st.form_submit_button(t("kbs.upload_start"), type="primary", icon=":material/upload:"):
            if not files:
                st.warning(t("kbs.upload_none"))
                return
            uploads = [Upload(f.name, f.getvalue()) for f in files]
            future = engine.submit_ingest(actor, kb.id, uploads)
            jobs_panel.track("ingest", kb.id, future, [u.name for u in uploads])
            st.rerun()


def file_table(engine: Engine, actor: Actor, kb) -> list:
    files = engine.list_files(actor, kb.id)
    if not files:
        st.info(t("kbs.no_files"))
        return []
    st.dataframe([{
        t("col.status"): t("status." + f.status),
        t("col.file"): f.name,
        t("col.size"): fmt_size(f.size),
        t("col.chunks"): f.chunk_count,
        t("col.type"): f.mime,
        t("col.error"): f.error,
        t("col.updated"): f.updated_at.strftime("%Y-%m-%d %H:%M"),
    } for f in files], hide_index=True, width="stretch")
    return files


def chunk_inspector(engine: Engine, actor: Actor, files: list) -> list[dict]:
    indexed = [f for f in files if f.status == "indexed"]
    if not indexed:
        st.info(t("kbs.no_indexed"))
        return []
    by_id = {f.id: f for f in indexed}
    file_id = st.selectbox(t("kbs.inspect_file"), list(by_id), format_func=lambda i: by_id[i].name, key="inspect_file")
    chunks = engine.file_chunks(actor, file_id)
    merged = sum(1 for c in chunks if c.get("merged_count", 1) > 1)
    st.caption(t("kbs.chunk_summary", n=len(chunks), merged=merged))
    page_size = 25
    pages = max(1, -(-len(chunks) // page_size))
    page = st.number_input(t("kbs.chunk_page", n=pages), 1, pages, 1, key=f"chunk_page_{file_id}") if pages > 1 else 1
    for c in chunks[(page - 1) * page_size: page * page_size]:
        heading = " › ".join(c.get("heading_path") or []) or "—"
        where = _location(c)
        label = f"#{c['chunk_index']} · {len(c['text'])} {t('kbs.chars')} · {heading}" + (f" · {where}" if where else "")
        with st.expander(label):
            st.caption(t("kbs.merged_count", n=c.get("merged_count", 1)))
            st.text(c["text"])
    return chunks


def _location(payload: dict) -> str:
    if payload.get("page") is not None:
        return t("loc.page", n=payload["page"])
    if payload.get("slide") is not None:
        return t("loc.slide", n=payload["slide"])
    if payload.get("start_seconds") is not None:
        m, s = divmod(int(payload["start_seconds"]), 60)
        return f"{m}:{s:02d}"
    return ""
