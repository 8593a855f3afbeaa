"""Plugins' dashboard panels (core/panels.py) as pages of the navigation.

Each registered panel is a page for everyone (a link to it resolves after sign-in, as every page's
does); the menu lists it only for those it is open to, and the page itself refuses the others. The
panel's own module is imported when its page runs, so a broken plugin breaks only its page: an
error box names the panel, the details go to the server log.
"""

from __future__ import annotations

import importlib
import logging

import streamlit as st

from core.errors import CoreError
from core.panels import DashboardPanel, dashboard_panels
from dashboard.auth import require_admin
from dashboard.errors import show_error
from dashboard.i18n import lang, t
from dashboard.page import page_context

log = logging.getLogger("ragdesk.dashboard")


def panel_pages(is_admin: bool) -> list:
    return [st.Page(_runner(panel), title=panel.title_in(lang()), icon=panel.icon, url_path=f"plugin-{panel.name}",
                    visibility="visible" if panel.open_to(is_admin) else "hidden")
            for panel in dashboard_panels()]


def _runner(panel: DashboardPanel):
    def run() -> None:
        engine, actor = page_context()
        st.title(panel.title_in(lang()))
        if panel.access == "admin":
            require_admin(actor)
        try:
            module, function = panel.render.split(":")
            render = getattr(importlib.import_module(module), function)
            render(engine, actor)
        except CoreError as exc:  # the engine refused or failed: its message, as on core's pages
            show_error(exc)
        except Exception as exc:  # the plugin's own bug: say which panel, keep the page up
            log.exception("dashboard panel %r (%s) failed", panel.name, panel.render, exc_info=exc)
            st.error(t("plugin.panel_failed", title=panel.title_in(lang()), kind=type(exc).__name__),
                     icon=":material/error:")

    run.__name__ = f"plugin_{panel.name.replace('-', '_')}"  # Streamlit names a callable page by it
    return run
