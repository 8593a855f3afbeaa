"""A citation shown where it stands: the PDF page with the passage highlighted, the slide, the
sheet rows, or the passage in its surrounding text (core/citations). Drawn only while its
expander is open (a lazy expander), so a long chat does not render every cited page."""

from __future__ import annotations

import html

import streamlit as st

from core.errors import CoreError
from dashboard.auth import current_actor
from dashboard.errors import show_error
from dashboard.i18n import t
from dashboard.runtime import get_engine

VIEWABLE_ORIGINS = ("kb", "attachment")  # files the engine keeps; web pages and fetched URLs have no file


def marked_html(text: str, spans: list) -> str:
    """``text`` escaped, the spans inside <mark>."""
    out, at = [], 0
    for start, end in sorted(tuple(s) for s in spans):
        if start < at:
            start = at
        if end <= start:
            continue
        out.append(html.escape(text[at:start]))
        out.append(f"<mark>{html.escape(text[start:end])}</mark>")
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


def viewable(c: dict) -> bool:
    return bool(c.get("file_id")) and c.get("origin", "kb") in VIEWABLE_ORIGINS


def show_citation_view(c: dict) -> None:
    """The view of one citation (a dict as stored with the message)."""
    engine = get_engine()
    actor = current_actor(engine)
    if actor is None:
        return
    try:
        view = engine.citation_view(actor, c["file_id"], c.get("text", ""), page=c.get("page"), slide=c.get("slide"),
                                    heading_path=c.get("heading_path") or ())
    except CoreError as exc:  # e.g. the file was deleted, or is no longer shared with this user
        show_error(exc)
        st.text(c.get("text", ""))
        return
    if view.kind == "pdf_page":
        for page in view.pages:
            caption = t("cite.page", page=page.page, count=view.page_count)
            if page.excerpt_png:  # the passage at reading size first (a whole page is small on a phone)
                st.image(page.excerpt_png, caption=t("cite.excerpt", page=page.page), output_format="PNG")
            st.image(page.png, caption=caption, width="stretch", output_format="PNG")  # PNG: sharp text, no JPEG
            if page.note:
                st.caption(t(f"cite.note.{page.note}"))
        st.text(c.get("text", ""))  # the passage as text, to copy
    elif view.kind == "sheet":
        _sheet(view)
    else:
        _passage(view)


def _passage(view) -> None:
    if view.title:
        st.markdown(f"**{html.escape(view.title)}**")
    before = "…\n" if view.more_before else ""
    after = "\n…" if view.more_after else ""
    st.markdown(f"<div class='ragdesk-passage ragdesk-cited'>{html.escape(before)}{marked_html(view.text, view.spans)}"
                f"{html.escape(after)}</div>", unsafe_allow_html=True)
    if view.note:
        st.caption(t(f"cite.note.{view.note}"))


def _sheet(view) -> None:
    st.markdown(f"**{html.escape(view.sheet)}**")
    if view.note:
        st.caption(t(f"cite.note.{view.note}"))
    if not view.rows:
        return
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["#", *view.header])
    body = "".join(
        f"<tr class='{'cited' if r.cited else ''}'><td>{r.number}</td>"
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in r.cells) + "</tr>"
        for r in view.rows)
    st.markdown(f"<div class='ragdesk-sheet'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>",
                unsafe_allow_html=True)
