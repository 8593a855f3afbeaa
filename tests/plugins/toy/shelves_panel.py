"""The toy shelves' dashboard panel: drawn by the dashboard only (core never imports this module).

It works through the shelves' operations, so the engine checks the actor as it does for every
caller; a full shelf is the operation's ``ToyShelfFull``, shown by the dashboard as an error box."""

from __future__ import annotations

import streamlit as st


def render(engine, actor) -> None:
    shelves = engine.toy_shelves(actor)
    st.caption(f"{len(shelves)} shelves")
    for found in shelves:
        st.markdown(f"**{found.shelf}**: {found.bookmarks} bookmarks ({', '.join(found.notes) or 'no notes'})")
    with st.form("toy_bookmark_form"):
        shelf = st.text_input("Shelf", key="toy_panel_shelf")
        note = st.text_input("Note", key="toy_panel_note")
        added = st.form_submit_button("Bookmark")
    if added:
        made = engine.toy_bookmark(actor, shelf, note)
        st.success(f"bookmarked {made.shelf} ({made.bookmarks} of the shelf's bookmarks)")


def broken(engine, actor) -> None:
    """A panel with a bug, to show that it breaks only its own page."""
    raise RuntimeError("the toy panel's own bug")
