"""Sessions in a real browser: a refresh and a deep link keep the user signed in, sign-out ends
the session for good, a second user in the same tab starts clean, and the menu follows the role."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import serve_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]

PASSWORD = "correct horse 1"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """One served app for this module, with a fast embedder (no model to load)."""
    yield from serve_app(tmp_path_factory.mktemp("e2e-sessions"),
                         {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64"})

class Tab:
    def __init__(self, page):
        from playwright.sync_api import expect

        self.page, self.expect = page, expect

    def idle(self) -> None:
        self.page.wait_for_function(
            "() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') === 'notRunning'"
            " && !document.querySelector('[data-stale=true]')", timeout=60_000)

    def see(self, text: str, timeout: int = 60_000) -> None:
        self.expect(self.page.get_by_text(text, exact=False).first).to_be_visible(timeout=timeout)

    def fill(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).filter(visible=True).first.fill(value)

    def click(self, name: str, role: str = "button") -> None:
        self.page.get_by_role(role, name=name, exact=True).filter(visible=True).first.click()

    def sign_up(self, name: str) -> None:
        self.click("Create account", role="tab")
        self.fill("User name", name)
        self.fill("Password", PASSWORD)
        self.fill("Password again", PASSWORD)
        self.click("Create account")
        self.signed_in_as(name)

    def sign_in(self, name: str) -> None:
        self.see("Sign in")
        self.fill("User name", name)
        self.fill("Password", PASSWORD)
        self.click("Sign in")
        self.signed_in_as(name)

    def signed_in_as(self, name: str) -> None:
        self.expect(self.page.get_by_test_id("stSidebar").get_by_text(f"{name} ·").first).to_be_visible(timeout=60_000)
        self.idle()

    def reload(self) -> None:
        self.page.reload()
        self.expect(self.page.get_by_test_id("stApp")).to_be_visible()
        self.idle()

    def nav_links(self) -> list[str]:
        return [a.inner_text().strip().split("\n")[-1] for a in self.page.get_by_test_id("stSidebarNav").get_by_role("link").all()]

    def sign_out(self) -> None:
        self.page.get_by_test_id("stSidebar").get_by_role("button", name="Sign out").click()
        self.see("Sign in")
        self.idle()


@pytest.fixture(scope="module")
def accounts(app_url, browser):
    """An admin and a user, created through the sign-up page (the first account is the admin)."""
    for name in ("admin", "bob"):
        context = browser.new_context()
        tab = Tab(context.new_page())
        tab.page.goto(app_url)
        tab.sign_up(name)
        context.close()
    return app_url


def test_refresh_and_new_tab_keep_the_session_sign_out_ends_it(accounts, browser):
    context = browser.new_context()
    tab = Tab(context.new_page())
    tab.page.goto(accounts)
    tab.sign_in("admin")
    tab.page.wait_for_function("() => document.cookie.includes('ragdesk_session=')", timeout=30_000)
    cookie = next(c for c in context.cookies() if c["name"] == "ragdesk_session")
    assert cookie["sameSite"] == "Strict" and cookie["path"] == "/" and cookie["expires"] > 0
    assert cookie["value"] not in tab.page.url
    tab.reload()
    tab.signed_in_as("admin")
    other = Tab(context.new_page())  # a new tab of the same browser
    other.page.goto(accounts + "/file_manager")
    other.signed_in_as("admin")
    other.expect(other.page.get_by_role("heading", name="File Manager").first).to_be_visible()
    other.page.close()

    tab.sign_out()
    tab.page.wait_for_function("() => !document.cookie.includes('ragdesk_session=')", timeout=30_000)
    tab.reload()
    tab.see("Sign in")
    assert tab.nav_links() == []  # signed out: no menu of pages
    assert not any(c["name"] == "ragdesk_session" and c["value"] for c in context.cookies())
    # the old token is dead on the server too, not only forgotten by this browser
    context.add_cookies([dict(cookie)])
    tab.reload()
    tab.see("Sign in")
    context.close()


def test_the_cookie_is_set_when_the_signed_in_page_shows_on_a_slow_link(accounts, browser):
    """Streamlit fetches the code that runs a page's own script the first time a page needs it.
    The sign-in page loads; then the link turns slow: whatever script code the browser asks for
    from here on is held back. The signed-in page must already hold its session cookie when it
    shows, or a refresh or a link opened at that moment signs the user out."""
    context = browser.new_context()
    page = context.new_page()
    asked, held, slow = [], [], []

    def script_code(route):
        asked.append(route.request.url)
        if slow:
            held.append(route)
        else:
            route.continue_()

    page.route("**/static/js/Html.*.js", script_code)
    tab = Tab(page)
    page.goto(accounts)
    tab.see("Sign in")
    tab.idle()
    slow.append(True)
    tab.sign_in("bob")
    cookie = page.evaluate("document.cookie")
    for route in held:
        route.continue_()
    assert asked, "the page asked for no script code: this test no longer watches the cookie's script"
    assert "ragdesk_session=" in cookie
    tab.reload()
    tab.signed_in_as("bob")
    context.close()


def test_deep_link_opens_its_page_after_sign_in(accounts, browser):
    context = browser.new_context()
    tab = Tab(context.new_page())
    tab.page.goto(accounts + "/knowledge_bases")
    tab.see("Sign in")
    assert tab.nav_links() == []
    tab.sign_in("bob")
    tab.expect(tab.page.get_by_role("heading", name="Knowledge Bases").first).to_be_visible()
    assert tab.page.url.endswith("/knowledge_bases")
    context.close()


def test_non_admin_opening_settings_by_url_is_told_admins_only(accounts, browser):
    context = browser.new_context()
    tab = Tab(context.new_page())
    tab.page.goto(accounts)
    tab.sign_in("bob")
    assert "Documents Settings" not in tab.nav_links() and "Chat" in tab.nav_links()
    tab.page.goto(accounts + "/documents_settings")
    tab.see("Admins only")
    assert tab.page.url.endswith("/documents_settings")
    tab.expect(tab.page.get_by_role("button", name="Save")).to_have_count(0)
    context.close()


def test_second_user_in_the_same_tab_can_chat(accounts, browser):
    context = browser.new_context()
    tab = Tab(context.new_page())
    tab.page.goto(accounts)
    tab.sign_in("admin")
    box = tab.page.get_by_test_id("stChatInputTextArea")
    box.fill("What is the travel policy?")
    box.press("Enter")
    tab.expect(tab.page.get_by_test_id("stChatMessage")).to_have_count(2, timeout=120_000)
    tab.idle()
    tab.sign_out()
    tab.sign_in("bob")
    tab.expect(tab.page.get_by_test_id("stChatMessage")).to_have_count(0)  # admin's chat is not shown
    box.fill("Where do I start?")
    box.press("Enter")
    tab.expect(tab.page.get_by_test_id("stChatMessage")).to_have_count(2, timeout=120_000)
    tab.idle()
    assert not tab.page.get_by_text("not found").count()
    assert not tab.page.get_by_test_id("stAlertContentError").count()
    # the answer finished: no status is left spinning
    tab.expect(tab.page.get_by_test_id("stExpanderIconSpinner")).to_have_count(0)
    context.close()
