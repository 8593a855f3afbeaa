"""The Google Drive page's parts: connection, consent redirect, browser, import, sources, sync log.

Everything goes through the engine as the signed-in actor (their own Drive connection only).
"""

from __future__ import annotations

import time
from concurrent.futures import Future

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.errors import show_error
from dashboard.i18n import t
from dashboard.messages import progress_line
from dashboard.page import fmt_size, fmt_type

PATH_KEY, IMPORT_KEY, SYNC_KEY, AUTH_KEY = "gdrive_path", "gdrive_import", "gdrive_sync", "gdrive_auth"
AUTH_URL_SECONDS = 600  # a fresh consent URL (state + PKCE) after this; the server keeps one 15 minutes
PLACES = [("root", "gdrive.my_drive"), ("shared-with-me", "gdrive.shared_with_me"), ("shared-drives", "gdrive.shared_drives")]


def finish_redirect(engine: Engine, actor: Actor | None) -> bool:
    """Google sent the user back here with ?code=…&state=…: finish the exchange, clean the URL.
    ``actor`` None: the redirect opened a new, signed-out session (see Engine.gdrive_finish_auth)."""
    params = st.query_params
    if "state" not in params or ("code" not in params and "error" not in params):
        return False
    code, state = params.get("code", ""), params.get("state", "")
    st.query_params.clear()
    st.session_state.pop(AUTH_KEY, None)
    try:
        engine.gdrive_finish_auth(actor, code, state)
    except Exception as exc:
        show_error(exc)
        return True
    if actor is None:
        st.success(t("gdrive.finished_sign_in"), icon=":material/check_circle:")
    else:
        st.toast(t("gdrive.finished"), icon=":material/check_circle:")
    return True


def setup_missing(status: dict, is_admin: bool) -> None:
    if is_admin:
        from dashboard.settings_form import field_text  # the fields' labels, as Documents Settings shows them

        st.warning(t("gdrive.missing", fields=", ".join(field_text("gdrive", n)[0] for n in status["missing"])),
                   icon=":material/settings:")
    else:
        st.info(t("gdrive.missing_user"))


def _connect_button(engine: Engine, actor: Actor, label_key: str) -> None:
    cached = st.session_state.get(AUTH_KEY)
    if st.button(t(label_key), icon=":material/add_to_drive:", type="primary", help=t("gdrive.connect_help")):
        cached = (engine.gdrive_auth_url(actor), time.time())
        st.session_state[AUTH_KEY] = cached
    if cached and time.time() - cached[1] < AUTH_URL_SECONDS:
        st.link_button(t("gdrive.continue"), cached[0], icon=":material/open_in_new:")


def connection_bar(engine: Engine, actor: Actor, status: dict) -> bool:
    """Connect / reconnect / connected-as + disconnect. True when connected."""
    if status["state"] == "reconnect":
        st.warning(t("gdrive.reconnect", error=status["error"]), icon=":material/link_off:")
        _connect_button(engine, actor, "gdrive.reconnect_button")
        return False
    if not status["connected"]:
        _connect_button(engine, actor, "gdrive.connect")
        return False
    with st.container(horizontal=True, vertical_alignment="center"):
        st.success(t("gdrive.connected_as", who=status["email"] or status["name"]), icon=":material/cloud_done:")
        # asked first: disconnecting deletes the tokens and stops every watched Drive source
        with st.popover(t("gdrive.disconnect"), icon=":material/link_off:"):
            st.markdown(t("gdrive.disconnect_confirm"))
            if st.button(t("gdrive.disconnect_yes"), type="primary", key="gdrive_disconnect_yes"):
                engine.gdrive_disconnect(actor)
                for key in (PATH_KEY, AUTH_KEY):
                    st.session_state.pop(key, None)
                st.toast(t("gdrive.disconnected"))
                st.rerun()
    return True


# ------------------------------------------------------------------ browser
def _breadcrumb() -> list[tuple[str, str]]:
    return st.session_state.setdefault(PATH_KEY, [])


def _go(path: list[tuple[str, str]]) -> None:
    """Button callback (runs before the widgets): open a folder, leave any search."""
    st.session_state[PATH_KEY] = path
    st.session_state["gdrive_query"] = ""


def browser(engine: Engine, actor: Actor) -> list[dict]:
    """Places, breadcrumb, search and the folder table; returns the entries shown."""
    path = _breadcrumb()
    if not path:
        st.session_state[PATH_KEY] = path = [("root", t("gdrive.my_drive"))]
    with st.container(horizontal=True):
        for place, key in PLACES:
            st.button(t(key), key=f"place_{place}", on_click=_go, args=([(place, t(key))],),
                      type="primary" if path[0][0] == place else "secondary")
    with st.container(horizontal=True):
        for depth, (_folder_id, name) in enumerate(path):
            st.button(f"{name} ›" if depth < len(path) - 1 else name, key=f"crumb_{depth}", type="tertiary",
                      on_click=_go, args=(path[:depth + 1],))
    query = st.text_input(t("gdrive.search"), key="gdrive_query")
    entries = engine.gdrive_list(actor, None, query) if query.strip() else engine.gdrive_list(actor, path[-1][0])
    if query.strip():
        st.caption(t("gdrive.results_for", q=query.strip()))
    if not entries:
        st.info(t("gdrive.empty"))
        return []
    folders = [e for e in entries if e["folder"]]
    if folders:
        with st.container(horizontal=True):
            for e in folders[:60]:
                st.button(t("gdrive.open", name=e["name"]), key=f"open_{e['id']}", icon=":material/folder:",
                          on_click=_go, args=(path + [(e["id"], e["name"])],))
    st.dataframe([{t("gdrive.col.name"): e["name"], t("gdrive.col.type"): t("gdrive.folder") if e["folder"] else fmt_type(e["mime"]),
                   t("gdrive.col.size"): fmt_size(e["size"]) if e["size"] is not None else "",
                   t("gdrive.col.modified"): e["modified"][:16].replace("T", " "), t("gdrive.col.owner"): e["owner"]}
                  for e in entries], hide_index=True, width="stretch")
    return entries


def import_form(engine: Engine, actor: Actor, entries: list[dict]) -> None:
    choices = {e["id"]: e for e in entries if e["importable"] and not e.get("shared_drive")}
    chosen = st.multiselect(t("gdrive.select"), list(choices), key="gdrive_selection",
                            format_func=lambda i: ("📁 " if choices[i]["folder"] else "") + choices[i]["name"],
                            placeholder=t("common.choose_many"))
    kbs = [kb for kb in engine.list_kbs(actor) if actor.is_admin or kb.owner_id == actor.user_id]
    if not kbs:
        st.info(t("gdrive.no_kb"))
        return
    by_id = {kb.id: kb for kb in kbs}
    with st.container(horizontal=True, vertical_alignment="bottom"):
        kb_id = st.selectbox(t("gdrive.import_into"), list(by_id), format_func=lambda i: by_id[i].name, key="gdrive_kb")
        watch = st.toggle(t("gdrive.watch"), help=t("gdrive.watch_help"), key="gdrive_watch")
        go = st.button(t("gdrive.import"), icon=":material/download:", type="primary",
                       disabled=not chosen or IMPORT_KEY in st.session_state)
    if go:
        st.session_state[IMPORT_KEY] = (kb_id, engine.submit_gdrive_import(actor, kb_id, list(chosen), watch=watch))
        st.rerun()


def words(prefix: str, value: str) -> str:
    """A stored value (an action, a state, a trigger) in words; the value itself when unnamed."""
    text = t(f"{prefix}.{value}")
    return value if text == f"{prefix}.{value}" else text


def show_report(result) -> None:
    counts = result.as_dict()
    text = t("gdrive.import_done", status=counts["status"], added=counts["added"], updated=counts["updated"],
             removed=counts["removed"], failed=counts["failed"])
    (st.success if counts["status"] == "done" and not counts["failed"] else st.warning)(
        text + (f" — {result.error}" if result.error else ""))
    if result.results:
        st.dataframe([{t("gdrive.col.name"): r.name, t("gdrive.col.action"): words("gdrive.action", r.action),
                       t("gdrive.col.detail"): r.error}
                      for r in result.results], hide_index=True, width="stretch")


def work_panel(engine: Engine, actor: Actor, key: str) -> None:
    """A running import or sync: live job progress with cancel; its result once it is done."""
    held = st.session_state.get(key)
    if held is None:
        return
    kb_id, future = held
    if future.done():
        st.session_state.pop(key)
        try:
            show_report(future.result())
        except Exception as exc:
            show_error(exc)
        return
    _live(engine, actor, key, kb_id, future)


@st.fragment(run_every=1.0)
def _live(engine: Engine, actor: Actor, key: str, kb_id: str, future: Future) -> None:
    if future.done():
        st.rerun()
    st.caption(t("gdrive.importing"))
    for job in engine.jobs(actor, active_only=True):
        if job.kb_id != kb_id:
            continue
        total = max(job.progress_total, 1)
        cols = st.columns([5, 1], vertical_alignment="bottom")
        cols[0].progress(min(job.progress_done / total, 1.0), text=progress_line(job))
        if job.cancel_requested:
            cols[1].caption(t("jobs.cancelling"))
        elif cols[1].button(t("jobs.cancel"), key=f"gd_cancel_{job.id}", icon=":material/cancel:"):
            engine.cancel_job(actor, job.id)


# ------------------------------------------------------------------ chat: attach from Drive
def chat_attach(engine: Engine, actor: Actor, temporary: bool) -> None:
    """On the chat page: attach Drive files to this chat as its own context (connected users only;
    Drive is asked only when the user searches)."""
    status = engine.gdrive_status(actor)
    if temporary or status["missing"] or not status["connected"]:
        return
    with st.expander(t("gdrive.chat_attach"), icon=":material/add_to_drive:"):
        query = st.text_input(t("gdrive.search"), key="chat_drive_query")
        if not query.strip():
            return
        files = {e["id"]: e for e in engine.gdrive_list(actor, None, query) if not e["folder"] and e["importable"]}
        chosen = st.multiselect(t("gdrive.chat_pick"), list(files), format_func=lambda i: files[i]["name"], key="chat_drive_files",
                                placeholder=t("common.choose_many"))
        if st.button(t("gdrive.chat_attach_button"), icon=":material/attach_file:", disabled=not chosen):
            chat_id = st.session_state.get("chat_id") or engine.create_chat(actor, title=files[chosen[0]]["name"][:60]).id
            st.session_state["chat_id"] = chat_id
            for r in engine.gdrive_attach_to_chat(actor, chat_id, list(chosen)):
                (st.caption if r.ok else st.error)(t("chat.attached", name=r.name, status=words("status", r.status), error=r.error))
