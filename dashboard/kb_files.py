"""Upload (files and web pages), file list with retry and download, and the chunk inspector
for one knowledge base."""

from __future__ import annotations

import re

import streamlit as st

from core import Engine
from core.ingest.service import Upload
from core.types import Actor
from dashboard import jobs_panel
from dashboard.i18n import t
from dashboard.messages import said
from dashboard.page import NOT_INDEXED, file_state, fmt_size, fmt_type, fmt_where
from dashboard.uploads import upload_limit_mb

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")


def _gen(kb_id: str) -> int:
    return st.session_state.get(f"upload_gen_{kb_id}", 0)


def _accepted(kb, kind_names: list[str], future) -> None:
    """The work is with the engine: track it, and only now empty the picker."""
    jobs_panel.track("ingest", kb.id, future, kind_names, kb.name)
    st.session_state[f"upload_gen_{kb.id}"] = _gen(kb.id) + 1
    st.rerun()


def upload_form(engine: Engine, actor: Actor, kb) -> None:
    limit = upload_limit_mb(engine)  # the browser refuses a larger file before sending it (dashboard/uploads.py)
    # no clear_on_submit: the chosen files stay until the engine has accepted them
    with st.form(f"upload_{kb.id}"):
        st.caption(t("kbs.upload_target", kb=kb.name))
        files = st.file_uploader(t("kbs.upload"), accept_multiple_files=True, key=f"uploader_{kb.id}_{_gen(kb.id)}",
                                 help=t("kbs.upload_help", mb=limit), max_upload_size=limit)
        st.caption(t("kbs.upload_limit", mb=limit))
        if st.form_submit_button(t("kbs.upload_start"), type="primary", icon=":material/upload:"):
            if not files:
                st.warning(t("kbs.upload_none"))
                return
            uploads = [Upload(f.name, f.getvalue()) for f in files]
            _accepted(kb, [u.name for u in uploads], engine.submit_ingest(actor, kb.id, uploads))
    with st.form(f"add_url_{kb.id}"):
        raw = st.text_area(t("kbs.add_url"), key=f"urls_{kb.id}_{_gen(kb.id)}", height=68,
                           placeholder="https://example.com/handbook.html", help=t("kbs.add_url_help"))
        if st.form_submit_button(t("kbs.add_url_start"), icon=":material/language:"):
            urls = [u.strip() for u in raw.split() if u.strip()]
            bad = [u for u in urls if not u.startswith(("http://", "https://"))]
            if not urls or bad:
                st.warning(t("kbs.add_url_invalid", urls=", ".join(bad)) if bad else t("kbs.add_url_none"))
                return
            _accepted(kb, urls, engine.submit_ingest(actor, kb.id, [Upload.from_url(u) for u in urls]))


def file_table(engine: Engine, actor: Actor, kb, writable: bool) -> list:
    files = engine.list_files(actor, kb.id)
    if not files:
        st.info(t("kbs.no_files"))
        return []
    st.dataframe([{
        t("col.status"): t("status." + file_state(f)),
        t("col.file"): f.name,
        t("col.type"): fmt_type(f.mime),
        t("col.size"): fmt_size(f.size),
        t("col.chunks"): f.chunk_count,
        t("col.updated"): f.updated_at.strftime("%Y-%m-%d %H:%M"),
    } for f in files], hide_index=True, width="stretch")
    for f in [f for f in files if f.status in NOT_INDEXED]:
        with st.container(border=True, horizontal=True, vertical_alignment="center"):
            reason = said(f.error, f.error_key, f.error_params) or "—"
            state = file_state(f)
            st.markdown(f"**{f.name}** — {t('status.' + state)}: {reason}", width="stretch")
            if writable and state != "refused" and st.button(t("kbs.retry"), key=f"retry_{f.id}", icon=":material/refresh:"):
                kb_id, future = engine.submit_retry(actor, f.id)
                jobs_panel.track("ingest", kb_id, future, [f.name], kb.name)
                st.rerun()
    _download(engine, actor, files)
    return files


def _download(engine: Engine, actor: Actor, files: list) -> None:
    stored = [f for f in files if f.sha256]
    if not stored:
        return
    by_id = {f.id: f for f in stored}
    with st.expander(t("kbs.download"), icon=":material/download:"):
        file_id = st.selectbox(t("col.file"), list(by_id), format_func=lambda i: by_id[i].name, key="download_file")
        name = by_id[file_id].name
        # read on click only (the engine checks the actor then): no file bytes on every page run
        st.download_button(t("kbs.download_button", name=name), lambda: engine.file_original(actor, file_id)[1],
                           file_name=name.rsplit("/", 1)[-1] or "file", icon=":material/download:",
                           key="download_original", on_click="ignore")


def heading_path(chunk: dict) -> list[str]:
    """The chunk's heading path, ending with the heading the chunk itself starts with (a chunk
    indexed before its path held it); a heading the path holds already is not added again."""
    path = list(chunk.get("heading_path") or [])
    first = next((line for line in chunk.get("text", "").splitlines() if line.strip()), "")
    match = _HEADING.match(first)
    if match and match.group(1) not in path:
        path.append(match.group(1))
    return path


def chunk_inspector(engine: Engine, actor: Actor, files: list) -> list[dict]:
    indexed = [f for f in files if f.status == "indexed"]
    if not indexed:
        st.info(t("kbs.no_indexed"))
        return []
    by_id = {f.id: f for f in indexed}
    file_id = st.selectbox(t("kbs.inspect_file"), list(by_id), format_func=lambda i: by_id[i].name, key="inspect_file")
    chunks = engine.file_chunks(actor, file_id)
    counts = [int(c.get("merged_count") or 1) for c in chunks]
    merged = sum(1 for n in counts if n > 1)
    # one count, said once: pieces before the merge → chunks after it
    st.caption(t("kbs.chunk_summary", n=len(chunks), pieces=sum(counts), merged=merged))
    page_size = 25
    pages = max(1, -(-len(chunks) // page_size))
    page = st.number_input(t("kbs.chunk_page", n=pages), 1, pages, 1, key=f"chunk_page_{file_id}") if pages > 1 else 1
    for c in chunks[(page - 1) * page_size: page * page_size]:
        heading = " › ".join(heading_path(c)) or "—"
        where = fmt_where(c)
        n = int(c.get("merged_count") or 1)
        label = f"#{c['chunk_index']} · {len(c['text'])} {t('kbs.chars')} · {heading}" + (f" · {where}" if where else "")
        with st.expander(label):
            if n > 1:
                st.caption(t("kbs.merged_count", n=n))
            st.text(c["text"])
    return chunks
