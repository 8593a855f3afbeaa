"""Chat pieces: message bubbles with citations, live answer streaming from engine events,
history list, #mentions."""

from __future__ import annotations

import re
from dataclasses import asdict, is_dataclass
from typing import Any

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.header import mode_badge
from dashboard.i18n import t

MENTION = re.compile(r"(?<![\w#])#([^\s#]+)")


def mentioned_kbs(question: str, kbs: list) -> list[str]:
    """Ids of the knowledge bases named as #name in the question (case-insensitive)."""
    by_name = {kb.name.lower(): kb.id for kb in kbs}
    return [by_name[m.lower()] for m in MENTION.findall(question) if m.lower() in by_name]


def _plain(obj: Any) -> dict:
    return asdict(obj) if is_dataclass(obj) else dict(obj)


def citation_label(c: dict) -> str:
    where = c.get("location") or ""
    heading = (c.get("heading_path") or [""])[-1]  # the nearest heading; the path's top is usually the title
    return " · ".join(x for x in (f"[{c.get('n', '?')}] {c.get('source_name', '')}", where, heading) if x)


def render_citations(citations: list) -> None:
    for c in map(_plain, citations):
        with st.expander(citation_label(c), icon=":material/format_quote:"):
            if c.get("score") is not None:
                st.caption(f"{t('col.final')}: {float(c['score']):.3f}")
            if c.get("url"):
                st.link_button(t("chat.open_source"), c["url"], icon=":material/open_in_new:")
            st.text(c.get("text", ""))


def render_meta(mode: str, hit: bool | None, llm_called: bool | None, timings: dict | None) -> None:
    with st.container(horizontal=True, gap="small"):
        if mode:
            mode_badge(mode)
        if hit is not None:
            st.badge(t("chat.hit") if hit else t("chat.no_hit"), color="blue" if hit else "orange")
        if llm_called is not None:
            st.badge(t("chat.llm_called") if llm_called else t("chat.llm_not_called"), color="gray")
        total = total_ms(timings or {})
        if total:
            st.badge(f"{total:.0f} ms", color="gray", icon=":material/timer:")


def total_ms(timings: dict) -> float:
    """Whole answer time: the engine's total, else the latest mark (marks count from the question)."""
    for key in ("total_ms", "total"):
        if key in timings:
            return float(timings[key])
    return float(max((v for v in timings.values() if isinstance(v, (int, float))), default=0.0))


def render_stored_message(msg) -> None:
    with st.chat_message(msg.role):
        st.markdown(msg.content)
        if msg.role == "assistant":
            for notice in getattr(msg, "notices", None) or []:
                st.caption(f"ⓘ {notice}")
            render_meta(msg.mode, msg.hit, msg.llm_called, msg.timings)
            render_citations(msg.citations or [])


def render_answer(answer) -> None:
    """A finished Answer (temporary chats keep these in the session)."""
    st.markdown(answer.text or answer.error)
    for notice in answer.notices:
        st.caption(f"ⓘ {notice}")
    render_meta(answer.mode, answer.hit, answer.llm_called, answer.timings_ms)
    render_citations(answer.citations)


_WEB_STATUS = {
    "Generating search query": "web.generating", "No search query generated": "web.no_query",
    "Searching the web": "web.searching", "No search results found": "web.no_results",
    "An error occurred while searching the web": "web.failed",
}


def web_status_label(ev) -> str:
    """A web_search event's description in the session's language ("Searched N sites" counts its URLs)."""
    if ev.message.startswith("Searched "):
        return t("web.searched", n=len(ev.data.get("urls") or []))
    key = _WEB_STATUS.get(ev.message)
    return t(key) if key else ev.message


def _show_web_status(status, ev) -> None:
    label = web_status_label(ev)
    status.update(label=label, state="error" if ev.data.get("error") else "running")
    status.write(f":red[{label}]" if ev.data.get("error") else label)
    for url in ev.data.get("urls") or []:
        status.text(url)  # as text: a URL from the web is never rendered as markdown


def ask_streaming(engine: Engine, actor: Actor, question: str, **kw):
    """Ask and show the engine's events live: a status line for retrieval, the text as it comes."""
    with st.chat_message("assistant"):
        status = st.status(t("chat.thinking"), expanded=False)
        text_slot = st.empty()
        streamed: list[str] = []

        def on_event(ev) -> None:
            if ev.kind == "text":
                streamed.append(ev.message)
                text_slot.markdown("".join(streamed) + " ▌")
            elif ev.kind == "web_search":
                _show_web_status(status, ev)
            elif ev.kind == "error":
                status.update(label=ev.message or t("chat.error"), state="error")
            elif ev.kind == "done":
                status.update(label=t("chat.done"), state="complete")
            elif ev.message:
                status.update(label=ev.message)
                status.write(ev.message)

        try:
            answer = engine.ask(actor, question, on_event=on_event, **kw)
        except Exception:  # the caller shows the error; the status must not spin forever
            status.update(label=t("chat.error"), state="error")
            text_slot.empty()
            raise
        status.update(label=t("chat.done") if not answer.error else answer.error,
                      state="error" if answer.error else "complete")
        text_slot.empty()
        render_answer(answer)
    return answer


def web_search_toggle(engine: Engine) -> bool:
    """The chat's Web search switch: shown only when the admin enabled web search; disabled, with
    a note, in strict mode (strict answers never search the web)."""
    settings = engine.settings()
    if not settings.web_search.enable_web_search:
        return False
    strict = settings.strict.rag_strict_mode
    on = st.toggle(t("chat.web"), key="chat_web", disabled=strict, help=t("chat.web_help"))
    if strict:
        st.caption(t("chat.web_strict"))
        return False
    return on


def _open_chat(chat_id: str | None) -> None:
    # A callback runs before the widgets are drawn, so it may reset the temporary switch.
    if chat_id:
        st.session_state["chat_id"] = chat_id
    else:
        st.session_state.pop("chat_id", None)
    st.session_state["temporary"] = False
    st.session_state["temp_answers"] = []


def history(engine: Engine, actor: Actor) -> None:
    """Sidebar: new chat, temporary switch, searchable list of past chats."""
    with st.sidebar:
        st.divider()
        st.button(t("chat.new"), icon=":material/add_comment:", key="new_chat", width="stretch",
                  on_click=_open_chat, args=(None,))
        st.toggle(t("chat.temporary"), key="temporary", help=t("chat.temporary_help"))
        query = st.text_input(t("chat.search"), key="chat_search", placeholder=t("chat.search_hint"))
        for chat in engine.list_chats(actor, query):
            current = chat.id == st.session_state.get("chat_id")
            c1, c2 = st.columns([5, 1], vertical_alignment="center")
            c1.button(chat.title or t("chat.untitled"), key=f"chat_{chat.id}", width="stretch",
                      type="primary" if current else "secondary", on_click=_open_chat, args=(chat.id,))
            if c2.button("", icon=":material/delete:", key=f"del_chat_{chat.id}", help=t("chat.delete")):
                engine.delete_chat(actor, chat.id)
                if current:
                    st.session_state.pop("chat_id", None)
                st.rerun()
