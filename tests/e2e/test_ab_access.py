"""The Strict A/B page in a real browser, strict mode on: an admin has it in the menu; a plain
user does not, and opening its URL says why (the engine refuses the compare in any case)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import serve_app
from tests.e2e.test_sessions import Tab

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]

AB = "Strict A/B compare"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from serve_app(tmp_path_factory.mktemp("e2e-ab-access"),
                         {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
                          "RAGDESK_STRICT__RAG_STRICT_MODE": "true"})


def test_the_ab_page_is_in_the_admins_menu_only(app_url, browser):
    admin = browser.new_context()
    tab = Tab(admin.new_page())
    tab.page.goto(app_url)
    tab.sign_up("admin")  # the first account is the admin
    assert AB in tab.nav_links()
    admin.close()

    user = browser.new_context()
    tab = Tab(user.new_page())
    tab.page.goto(app_url)
    tab.sign_up("bob")
    assert AB not in tab.nav_links() and "Chat" in tab.nav_links()
    # the session cookie is written by the page's script after sign-up; a deep link before it lands
    # opens a fresh, signed-out session (as it would for a person who pasted the URL that fast)
    tab.page.wait_for_function("() => document.cookie.includes('ragdesk_session=')", timeout=30_000)
    tab.page.goto(app_url + "/ab_compare")
    tab.see("The Strict A/B compare shows normal-mode answers")
    tab.expect(tab.page.get_by_role("button", name="Compare")).to_have_count(0)
    user.close()
