"""Chat pieces: message bubbles with citations, live answer streaming from engine events,
#mentions, where an answer came from, thumbs up / down."""

from __future__ import annotations

import re
from dataclasses import asdict, is_dataclass
from typing import Any

import streamlit as st

from core import Engine
from core.answering.confidence import says_weak
from core.answering.provenance import answer_sources
from core.types import Actor
from dashboard.citation_view import show_citation_view, viewable
from dashboard.header import mode_badge
from dashboard.i18n import t
from dashboard.page import fmt_where

MENTION = re.compile(r"(?<![\w#])#([^\s#]+)")
_FENCE = re.compile(r"^\s*(```|~~~)")
SOURCE_STYLE = {"curated": ("violet", ":material/verified:"), "knowledge_base": ("blue", ":material/library_books:"), "attachment": ("violet", ":material/attach_file:"),
                "web": ("green", ":material/language:"), "general": ("orange", ":material/psychology:"),
                "none": ("gray", ":material/block:")}


def mentioned_kbs(question: str, kbs: list) -> list[str]:
    """Ids of the knowledge bases named as #name in the question (case-insensitive)."""
    by_name = {kb.name.lower(): kb.id for kb in kbs}
    return [by_name[m.lower()] for m in MENTION.findall(question) if m.lower() in by_name]


def keep_line_breaks(text: str) -> str:
    """Markdown joins single line breaks into one paragraph; an answer's lines (one quote per
    line) must stay lines. Ends a line with a hard break unless it is in a code block, a table
    row, or followed by a blank line."""
    lines = (text or "").split("\n")
    out, in_code = [], False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_code = not in_code
            out.append(line)
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        plain = not in_code and line.strip() and following.strip() and not line.lstrip().startswith("|") \
            and not following.lstrip().startswith("|") and not _FENCE.match(following)
        out.append(line.rstrip() + "  " if plain else line)
    return "\n".join(out)


def _plain(obj: Any) -> dict:
    return asdict(obj) if is_dataclass(obj) else dict(obj)


def curated_label(c: dict) -> str:
    """"Curated answer · approved by X on DATE" (the date as stored: ISO, UTC)."""
    return t("chat.curated_by", by=c.get("approved_by") or "?", date=str(c.get("approved_at") or "")[:10])


def citation_label(c: dict, deleted: bool = False) -> str:
    if c.get("origin") == "curated":
        return f"[{c.get('n', '?')}] {curated_label(c)}"
    where = fmt_where(c)
    heading = (c.get("heading_path") or [""])[-1]  # the nearest heading; the path's top is usually the title
    name = c.get("source_name", "") + (f" ({t('chat.file_deleted')})" if deleted else "")
    return " · ".join(x for x in (f"[{c.get('n', '?')}] {name}", where, heading) if x)


def render_citations(citations: list, existing_files: set[str] | None = None, key: str | None = None) -> None:
    """``existing_files``: the ids still present; a citation of any other file is marked deleted.
    With ``key`` (unique per message), opening a citation of a kept file shows it where it stands
    (dashboard/citation_view.py); the expander is lazy, so nothing is rendered while it is closed."""
    for c in map(_plain, citations):
        deleted = existing_files is not None and bool(c.get("file_id")) and c["file_id"] not in existing_files
        see = key is not None and not deleted and viewable(c)
        lazy = {"key": f"cite_{key}_{c.get('n')}_{c.get('chunk_id', '')}", "on_change": "rerun"} if see else {}
        box = st.expander(citation_label(c, deleted), icon=":material/format_quote:", **lazy)
        with box:
            if c.get("score") is not None:
                st.caption(f"{t('col.final')}: {float(c['score']):.3f}")
            if c.get("url"):
                st.link_button(t("chat.open_source"), c["url"], icon=":material/open_in_new:")
            if not see:
                st.text(c.get("text", ""))
            elif box.open:
                show_citation_view(c)


def source_badges(answer: Any) -> None:
    # A weak match (normal mode, core/answering/confidence.py) is not shown as a plain knowledge-base
    # answer; a stored message keeps it in its notices.
    weak = getattr(answer, "weak_match", False) or says_weak(getattr(answer, "notices", None) or [])
    for source in answer_sources(answer):
        color, icon = SOURCE_STYLE[source]
        if source == "curated":
            cited = next((c for c in map(_plain, getattr(answer, "citations", None) or []) if c.get("origin") == "curated"), {})
            st.badge(curated_label(cited), color=color, icon=icon)
        elif weak and source == "knowledge_base":
            st.badge(t("source.knowledge_base_weak"), color="orange", icon=":material/help:")
        else:
            st.badge(t(f"source.{source}"), color=color, icon=icon)


def render_meta(answer: Any, mode: str, llm_called: bool | None, timings: dict | None) -> None:
    with st.container(horizontal=True, gap="small"):
        if mode:
            mode_badge(mode)
        source_badges(answer)
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


def render_notices(notices: list[str]) -> None:
    for notice in notices or []:
        st.info(notice, icon=":material/info:")


def _feedback(engine: Engine, actor: Actor, message_id: str, current: int | None) -> None:
    """Thumbs up / down, stored with the answer (admins see them on Documents Settings)."""
    # st.feedback("thumbs"): 1 is thumbs up, 0 thumbs down, None no choice (a second click clears it)
    choice = st.feedback("thumbs", key=f"fb_{message_id}", default={1: 1, -1: 0}.get(current or 0))
    rating = {1: 1, 0: -1}.get(choice, 0) if choice is not None else 0
    if rating != (current or 0):
        engine.set_feedback(actor, message_id, rating)
        if rating:
            st.toast(t("chat.feedback_thanks"))


def render_stored_message(msg, engine: Engine | None = None, actor: Actor | None = None,
                          existing_files: set[str] | None = None, rating: int | None = None) -> None:
    with st.chat_message(msg.role):
        st.markdown(keep_line_breaks(msg.content))
        if msg.role == "assistant":
            render_notices(getattr(msg, "notices", None) or [])
            render_meta(msg, msg.mode, msg.llm_called, msg.timings)
            render_citations(msg.citations or [], existing_files, key=msg.id)
            if engine is not None and actor is not None:
                _feedback(engine, actor, msg.id, rating)


def render_answer(answer, key: str | None = None) -> None:
    """A finished Answer (temporary chats keep these in the session); ``key`` names it among the
    page's answers (its citations' expanders), the stored message's id by default."""
    st.markdown(keep_line_breaks(answer.text or answer.error))
    render_notices(answer.notices)
    render_meta(answer, answer.mode, answer.llm_called, answer.timings_ms)
    render_citations(answer.citations, key=key or getattr(answer, "message_id", None) or "live")


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


def event_label(ev) -> str:
    """A step of the answer as it happens, in the reader's language (by the event's kind and
    data; a notice is already in the question's language, a tool call shows itself)."""
    data = ev.data or {}
    if ev.kind == "retrieval_started":
        return t("ev.searching")
    if ev.kind == "sources_found":
        return t("ev.found", n=int(data.get("n", 0)))
    if ev.kind == "no_hit":
        return t("ev.no_hit")
    if ev.kind == "generating":
        return t("ev.asking", model=data["model"]) if data.get("model") else t("ev.quoting")
    if ev.kind == "search_query" and data.get("query"):
        return t("ev.searched_as", query=data["query"])
    if ev.kind == "curated":
        return t("ev.curated")
    return ev.message


def _show_web_status(status, ev) -> None:
    label = web_status_label(ev)
    status.update(label=label, state="error" if ev.data.get("error") else "running")
    status.write(f":red[{label}]" if ev.data.get("error") else label)
    for url in ev.data.get("urls") or []:
        status.text(url)  # as text: a URL from the web is never rendered as markdown


def ask_streaming(engine: Engine, actor: Actor, question: str, assistant: str | None = None, **kw):
    """Ask and show the engine's events live: a status line for retrieval, the text as it comes.
    ``assistant``: answer with that assistant's preset (it sets the knowledge bases and mode)."""
    with st.chat_message("assistant"):
        status = st.status(t("chat.thinking"), expanded=False)
        text_slot = st.empty()
        streamed: list[str] = []

        def on_event(ev) -> None:
            if ev.kind == "text":
                streamed.append(ev.message)
                text_slot.markdown(keep_line_breaks("".join(streamed)) + " ▌")
            elif ev.kind == "web_search":
                _show_web_status(status, ev)
            elif ev.kind == "error":
                status.update(label=ev.message or t("chat.error"), state="error")
            elif ev.kind == "done":
                status.update(label=t("chat.done"), state="complete")
            elif ev.message:
                label = event_label(ev)
                status.update(label=label)
                status.write(label)

        try:
            if assistant:
                answer = engine.ask_assistant(actor, assistant, question, on_event=on_event, **kw)
            else:
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
