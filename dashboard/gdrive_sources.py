"""The Google Drive page's synced sources (Drive selections, web pages, server folders, WebDAV) and their sync log.

Shown whether or not the Drive connection is up: after a disconnect (or when Google refuses the
tokens) the watched sources stay listed, saying they need a reconnect, with their log."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.gdrive_widgets import SYNC_KEY, show_report, words, work_panel
from dashboard.i18n import t
from dashboard.source_forms import dingtalk_form, folder_form, webdav_form


def failing_items(engine: Engine, actor: Actor, source_id: str) -> list[dict]:
    """The items the source's latest sync could not bring in (a file failing on every sync)."""
    latest = engine.sync_logs(actor, source_id=source_id, limit=1)
    return [r for r in (latest[0].results or []) if r.get("action") == "failed"] if latest else []


def _source_state(engine: Engine, actor: Actor, src, connected: bool) -> str:
    if src.kind == "gdrive" and (not connected or src.state == "reconnect"):
        return t("gdrive.state.reconnect")
    if src.state == "error":
        return t("gdrive.state.error", error=src.last_error or "—")
    failing = failing_items(engine, actor, src.id)
    if failing:
        names = ", ".join(f"{r.get('name', '?')} ({r.get('error') or '—'})" for r in failing[:3])
        return t("gdrive.state.failing", n=len(failing), names=names)
    return t("gdrive.state.ok")


def sources_panel(engine: Engine, actor: Actor, status: dict, connected: bool = True) -> None:
    minutes = status["sync_interval_minutes"]
    st.caption(t("gdrive.schedule", n=minutes) if minutes else t("gdrive.schedule_off"))
    work_panel(engine, actor, SYNC_KEY)
    mine = [s for s in engine.sources(actor) if s.owner_id == actor.user_id]
    kb_names = {kb.id: kb.name for kb in engine.list_kbs(actor)}
    if not mine:
        st.info(t("gdrive.sources_none"))
    for src in mine:
        usable = connected or src.kind != "gdrive"  # a Drive source syncs again once reconnected
        with st.container(border=True, horizontal=True, vertical_alignment="center"):
            when = src.last_sync_at.strftime("%Y-%m-%d %H:%M") if src.last_sync_at else t("gdrive.never")
            st.markdown(t("gdrive.source", title=src.title, kb=kb_names.get(src.kb_id, src.kb_id),
                          state=_source_state(engine, actor, src, connected), when=when))
            watch = st.toggle(t("gdrive.watch"), value=src.watch, key=f"watch_{src.id}")
            if watch != src.watch:
                engine.set_source_watch(actor, src.id, watch)
            if st.button(t("gdrive.sync_now"), key=f"sync_{src.id}", icon=":material/sync:",
                         disabled=not usable or SYNC_KEY in st.session_state):
                st.session_state[SYNC_KEY] = (src.kb_id, engine.submit_sync_source(actor, src.id))
                st.toast(t("gdrive.sync_started"))
                st.rerun()
    if connected:
        web_pages_form(engine, actor)
    folder_form(engine, actor)
    webdav_form(engine, actor)
    dingtalk_form(engine, actor)
    sync_log(engine, actor, {s.id: s.title for s in mine})


def web_pages_form(engine: Engine, actor: Actor) -> None:
    """Web pages as a second kind of synced source: re-fetched on the same schedule."""
    kbs = [kb for kb in engine.list_kbs(actor) if actor.is_admin or kb.owner_id == actor.user_id]
    if not kbs:
        return
    with st.expander(t("gdrive.web_title"), icon=":material/language:"):
        urls = st.text_area(t("gdrive.web_urls"), key="web_urls", help=t("gdrive.web_help"))
        by_id = {kb.id: kb for kb in kbs}
        kb_id = st.selectbox(t("gdrive.import_into"), list(by_id), format_func=lambda i: by_id[i].name, key="web_kb")
        if st.button(t("gdrive.web_add"), icon=":material/add_link:", disabled=not urls.strip()):
            show_report(engine.watch_web_pages(actor, kb_id, urls.split()))


def sync_log(engine: Engine, actor: Actor, titles: dict[str, str]) -> None:
    st.subheader(t("gdrive.log"))
    logs = [entry for entry in engine.sync_logs(actor, limit=30) if entry.source_id in titles]
    if not logs:
        st.caption(t("gdrive.log_none"))
        return
    st.dataframe([{t("gdrive.col.when"): entry.started_at.strftime("%Y-%m-%d %H:%M:%S"),
                   t("gdrive.col.source"): titles[entry.source_id], t("gdrive.col.trigger"): words("gdrive.trigger", entry.trigger),
                   t("col.status"): words("gdrive.run", entry.status), t("gdrive.col.added"): entry.added,
                   t("gdrive.col.updated"): entry.updated, t("gdrive.col.removed"): entry.removed,
                   t("gdrive.col.failed"): entry.failed, t("col.error"): entry.error} for entry in logs],
                 hide_index=True, width="stretch")
