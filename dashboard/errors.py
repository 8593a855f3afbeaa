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
        st.error(exc.message, icon=":material/error:")
    else:
        # A bug, not a user error: the details go to the server log, the page says what failed.
        log.exception("unexpected error on a page", exc_info=exc)
        st.error(t("error.unexpected", kind=type(exc).__name__), icon=":material/error:")


@contextmanager
def guard() -> Iterator[None]:
    """Wrap a page body (or a panel of it): st.rerun/st.stop pass through (BaseException)."""
    try:
        yield
    except Exception as exc:  # the last line of defence before Streamlit would print a traceback
        show_error(exc)
