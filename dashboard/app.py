"""ragdesk dashboard: ``streamlit run dashboard/app.py``.

Opens the engine once per server process, gates every page behind sign-in, draws the
header (mode badge + status strip) and hands over to the page chosen in the navigation.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # `streamlit run dashboard/app.py` puts only dashboard/ on the path
    sys.path.insert(0, str(REPO_ROOT))

import streamlit as st  # noqa: E402

from dashboard.api_tokens_panel import api_tokens_popover  # noqa: E402
from dashboard.auth import current_actor, password_popover, show_flash, sign_in_screen, sign_out, sync_cookie  # noqa: E402
from dashboard.errors import show_error  # noqa: E402
from dashboard.gdrive_widgets import finish_redirect  # noqa: E402
from dashboard.header import render_header, render_sidebar_account  # noqa: E402
from dashboard.i18n import t  # noqa: E402
from dashboard.plugin_panels import panel_pages  # noqa: E402
from dashboard.runtime import get_engine  # noqa: E402

PAGES = REPO_ROOT / "pages"


def navigation(is_admin: bool, *, can_compare: bool = False, signed_in: bool = True):
    """Every page is registered for everyone, so a URL always resolves to its own page (a deep link
    survives sign-in; a non-admin opening Documents Settings is told it is for admins). The menu
    lists only what the visitor can use: nothing before sign-in, no settings for non-admins, no
    Strict A/B compare for those who may not see normal-mode answers (``Engine.may_compare``), no
    plugin panel for those it is not open to (core/panels.py)."""
    return st.navigation([
        st.Page(PAGES / "chat.py", title=t("nav.chat"), icon=":material/chat:", default=True),
        st.Page(PAGES / "knowledge_bases.py", title=t("nav.kbs"), icon=":material/library_books:"),
        st.Page(PAGES / "assistants.py", title=t("nav.assistants"), icon=":material/smart_toy:"),
        st.Page(PAGES / "file_manager.py", title=t("nav.files"), icon=":material/folder_open:"),
        st.Page(PAGES / "documents_settings.py", title=t("nav.settings"), icon=":material/settings:",
                visibility="visible" if is_admin else "hidden"),
        st.Page(PAGES / "ab_compare.py", title=t("nav.ab"), icon=":material/compare:",
                visibility="visible" if can_compare else "hidden"),
        st.Page(PAGES / "google_drive.py", title=t("nav.gdrive"), icon=":material/add_to_drive:"),
        *panel_pages(is_admin),
    ], position="sidebar" if signed_in else "hidden")


def main() -> None:
    # an emoji icon: the browser draws it from a data: URL (a :material/…: page icon is fetched from
    # fonts.gstatic.com, telling a third party who uses ragdesk, and fails without internet)
    st.set_page_config(page_title="ragdesk", page_icon="📚", layout="wide")
    try:
        engine = get_engine()
        actor = current_actor(engine)
    except Exception as exc:  # e.g. the store is held by another process: say so, no traceback
        show_error(exc)
        st.stop()
    sync_cookie()
    if actor is None:
        finish_redirect(engine, None)  # issue 12: Google's consent redirect may open a signed-out session
        navigation(False, signed_in=False)  # resolves the URL's page, shows no menu
        sign_in_screen(engine)
        return
    page = navigation(actor.is_admin, can_compare=engine.may_compare(actor))
    show_flash()
    render_sidebar_account(engine, actor, lambda: sign_out(engine))
    with st.sidebar:
        password_popover(engine, actor)
        api_tokens_popover(engine, actor)
    try:
        render_header(engine)
    except Exception as exc:
        show_error(exc)
    page.run()


main()
