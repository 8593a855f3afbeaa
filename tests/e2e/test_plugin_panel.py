"""A plugin's dashboard panel (core/panels.py) in a real browser: the toy shelves' panel
(tests/plugins/toy/shelves_panel.py) is in an admin's menu, works through the plugin's operations
(a bookmark made on it is the plugin's table row; a full shelf is its error class's message), is not
in a plain user's menu and refuses them by URL; a panel that raises or cannot be imported shows an
error box naming it, and the other pages keep working. Nothing under core/ names the toy."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import FAST_ENV, serve_app
from tests.e2e.test_sessions import Tab

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]

PANEL = "Toy shelves"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from serve_app(tmp_path_factory.mktemp("e2e-plugin-panel"),
                         dict(FAST_ENV, RAGDESK_PLUGINS="tests.plugins.toy,tests.plugins.broken_panels"))


def _bookmark(tab: Tab, shelf: str, note: str) -> None:
    tab.fill("Shelf", shelf)
    tab.fill("Note", note)
    tab.click("Bookmark")
    tab.idle()


def test_an_admin_uses_the_panel_and_a_user_never_sees_it(app_url, browser):
    admin = browser.new_context()
    tab = Tab(admin.new_page())
    tab.page.goto(app_url)
    tab.sign_up("admin")  # the first account is the admin
    links = tab.nav_links()
    assert PANEL in links and "Broken toy panel" in links and links[0] == "Chat", links

    tab.click(PANEL, role="link")
    tab.see("0 shelves")
    _bookmark(tab, "blue", "kites")
    tab.see("bookmarked blue (1 of the shelf's bookmarks)")
    for note in ("b", "c"):
        _bookmark(tab, "blue", note)
    _bookmark(tab, "blue", "one too many")
    tab.see("toy shelf 'blue' already holds 3 bookmarks")  # the plugin's ToyShelfFull, in an error box
    tab.page.reload()
    tab.see("blue: 3 bookmarks (kites, b, c)")  # stored in the plugin's own table

    tab.click("Broken toy panel", role="link")
    tab.see("The plugin panel “Broken toy panel” failed (RuntimeError)")
    tab.click("Missing toy panel", role="link")
    tab.see("The plugin panel “Missing toy panel” failed (ModuleNotFoundError)")
    tab.click("Knowledge Bases", role="link")  # the rest of the dashboard is untouched
    tab.see("New knowledge base")
    admin.close()

    user = browser.new_context()
    tab = Tab(user.new_page())
    tab.page.goto(app_url)
    tab.sign_up("bob")
    links = tab.nav_links()
    assert PANEL not in links and "Broken toy panel" in links, links  # "user" panels are open to all
    tab.page.wait_for_function("() => document.cookie.includes('ragdesk_session=')", timeout=30_000)
    tab.page.goto(app_url + "/plugin-toy-shelves")
    tab.see("Admins only.")
    tab.expect(tab.page.get_by_role("button", name="Bookmark")).to_have_count(0)
    user.close()
