"""What every page starts with: the shared engine and the signed-in actor."""

from __future__ import annotations

import streamlit as st

from core import Engine
from core.types import Actor
from dashboard.auth import current_actor
from dashboard.i18n import t, worded
from dashboard.runtime import get_engine


# On a phone the sidebar covers the page: after a navigation, put it away (wide windows keep it).
_CLOSE_SIDEBAR_ON_PHONE = """<script>
(() => {
  if (window.innerWidth >= 768) return;
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (sidebar && close && sidebar.getBoundingClientRect().right > 0) close.click();
})();
</script><!-- %s -->"""


CLOSE_SIDEBAR = "close_sidebar_next_run"


def close_sidebar_on_phone() -> None:
    """Put the sidebar away on the next run (phones only), e.g. after a chat was chosen in it."""
    st.session_state[CLOSE_SIDEBAR] = st.session_state.get(CLOSE_SIDEBAR, 0) + 1


def _close_sidebar_after_navigation() -> None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx  # which page this run draws

    ctx = get_script_run_ctx()
    current = getattr(ctx, "page_script_hash", "") if ctx else ""
    previous = st.session_state.get("_last_page")
    st.session_state["_last_page"] = current
    navigated = previous is not None and previous != current
    asked = st.session_state.pop(CLOSE_SIDEBAR, 0)
    # drawn on every run, so the elements below keep their place (a moved st.tabs resets to its first tab);
    # not an HTML comment: comment-only HTML goes to another container. The comment makes each
    # request's script new to the browser (an unchanged element would not run it again).
    st.html(_CLOSE_SIDEBAR_ON_PHONE % f"{current}.{asked}" if navigated or asked else "<span hidden></span>",
            unsafe_allow_javascript=True, width="content")


def page_context() -> tuple[Engine, Actor]:
    engine = get_engine()
    actor = current_actor(engine)
    if actor is None:  # app.py shows the sign-in screen; a page never runs signed out
        st.stop()
    _close_sidebar_after_navigation()
    return engine, actor


PICK_NEXT = "kb_pick_next"


def select_kb_next(kb_id: str) -> None:
    """Make ``kb_id`` the selected knowledge base on the next run (e.g. one just created)."""
    st.session_state[PICK_NEXT] = kb_id


def choose_kb(engine: Engine, actor: Actor, key: str = "kb_id", label: str = ""):
    """A knowledge-base picker remembered across pages; None when there are none.

    The choice is set through the widget's own state before it is drawn: a changed ``index``
    alone is ignored by the browser, which keeps showing its last value (a new knowledge base
    would stay unselected while the page worked on another one). For the same reason a changed
    label (the visibility after "Update sharing", another language) is sent with the value."""
    kbs = engine.list_kbs(actor)
    if not kbs:
        return None
    ids = [kb.id for kb in kbs]
    by_id = {kb.id: kb for kb in kbs}
    wanted = st.session_state.pop(PICK_NEXT, None)
    if wanted in ids:
        st.session_state[key] = wanted
    elif st.session_state.get(key) not in ids:
        remembered = st.session_state.get("selected_kb")
        st.session_state[key] = remembered if remembered in ids else ids[0]
    named = worded(ids, lambda i: f"{by_id[i].name} ({t('vis.' + by_id[i].visibility)})")
    shown = f"{key}_shown"  # the label the browser holds for the current choice
    if st.session_state.get(shown) != named(st.session_state[key]):
        st.session_state[key] = st.session_state[key]  # a value set in state goes to the browser with its label
    chosen = st.selectbox(label or "KB", ids, key=key, format_func=named)
    st.session_state[shown] = named(chosen)
    st.session_state["selected_kb"] = chosen
    return by_id[chosen]


# Content types as people name them: a proper name stays as it is, a word ("type.…") is translated;
# anything else shows its sub-type in capitals.
FILE_TYPES = {
    "application/pdf": "PDF", "text/markdown": "Markdown", "text/plain": "type.text", "text/html": "type.web_page",
    "text/csv": "CSV", "application/json": "JSON", "application/zip": "ZIP", "message/rfc822": "type.email",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word",
    "application/msword": "Word", "application/vnd.ms-powerpoint": "PowerPoint",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel",
    "application/vnd.ms-excel": "Excel", "video/youtube": "YouTube",
    "application/vnd.google-apps.folder": "type.folder", "application/vnd.google-apps.shortcut": "type.shortcut",
    "application/vnd.google-apps.document": "type.gdoc", "application/vnd.google-apps.spreadsheet": "type.gsheet",
    "application/vnd.google-apps.presentation": "type.gslides", "application/vnd.google-apps.drawing": "type.gdrawing",
    "application/vnd.google-apps.form": "type.gform",
}


NOT_INDEXED = ("failed", "cancelled")


def file_state(f) -> str:
    """A file's state as every page names it: a failed file that was never stored (over the size
    limit, a bad name) is "refused" — there is nothing to retry, the user uploads it again."""
    stored = f.sha256 or f.name.startswith(("http://", "https://"))  # a URL is fetched again on Retry
    return "refused" if f.status == "failed" and not stored else f.status


def fmt_type(mime: str) -> str:
    mime = (mime or "").split(";")[0].strip().lower()
    if mime in FILE_TYPES:
        name = FILE_TYPES[mime]
        return t(name) if name.startswith("type.") else name
    if mime.startswith("image/"):
        return t("type.image", kind=mime.split("/")[1].upper())
    if mime.startswith("application/vnd.google-apps."):
        return t("type.gnative")
    return mime.split("/")[-1].upper() if mime else "—"


def fmt_where(found) -> str:
    """Where a passage is (a chunk's payload, a search hit, a citation) in the reader's language:
    its page (or the pages it runs over), slide or time; else the location it carries (a URL)."""
    get = found.get if isinstance(found, dict) else lambda name: getattr(found, name, None)
    if get("page") is not None:
        last = get("page_end")
        return t("loc.pages", n=get("page"), last=last) if last else t("loc.page", n=get("page"))
    if get("slide") is not None:
        return t("loc.slide", n=get("slide"))
    if get("start_seconds") is not None:
        m, s = divmod(int(get("start_seconds")), 60)
        return f"{m}:{s:02d}"
    location = get("location")  # a search hit's is a method
    return (location() if callable(location) else location) or ""


def fmt_score(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def fmt_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
