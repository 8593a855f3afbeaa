"""The page edge: engine errors become a clear message, never a traceback."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator

import streamlit as st

from core.errors import CoreError
from dashboard.i18n import t

log = logging.getLogger("ragdesk.dashboard")


def show_error(exc: BaseException) -> None:
    if isinstance(exc, CoreError):
        st.error(_for_viewer(exc), icon=":material/error:")
    else:
        # A bug, not a user error: the details go to the server log, the page says what failed.
        log.exception("unexpected error on a page", exc_info=exc)
        st.error(t("error.unexpected", kind=type(exc).__name__), icon=":material/error:")


def _for_viewer(exc: CoreError) -> str:
    """An admin (or a visitor not signed in yet: sign-in errors are theirs) reads the engine's
    message; a plain user reads a plain sentence with an error id for a provider's or the store's
    failure, whose own words may name hosts or internals (the log keeps them, scrubbed)."""
    from core.error_report import is_user_facing, shown_error

    viewer = st.session_state.get("error_audience")
    if viewer is None or viewer.is_admin or is_user_facing(exc):
        return exc.message
    return shown_error(exc, viewer, "loading this page")


@contextmanager
def guard() -> Iterator[None]:
    """Wrap a page body (or a panel of it): st.rerun/st.stop pass through (BaseException)."""
    try:
        yield
    except Exception as exc:  # the last line of defence before Streamlit would print a traceback
        show_error(exc)
