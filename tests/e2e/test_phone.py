"""A 420 px window (issue 18): each chat's ⋮ menu stays on its title's line, choosing a chat puts
the sidebar away, and every tab label is whole and on screen (Documents Settings, Knowledge Bases),
in both languages."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import serve_app
from tests.e2e.test_browser import Driver
from tests.e2e.test_pages import _enter, _language

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

WIDTH = 420


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from serve_app(tmp_path_factory.mktemp("e2e-phone"),
                         {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64"})


@pytest.fixture
def phone(app_url, browser, artifacts):
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    d = Driver(page, artifacts)
    d.n = 90
    _enter(d, app_url)
    yield d
    page.close()


def _open_sidebar(d: Driver) -> None:
    expand = d.page.get_by_test_id("stExpandSidebarButton")
    if expand.is_visible():
        expand.click()
    d.expect(d.page.get_by_test_id("stSidebarNav")).to_be_in_viewport()


def _two_chats_then_phone(d: Driver) -> None:
    for question in ("first question about leave", "second question about lunch"):
        d.ask(question)
        d.idle(timeout=120_000)
        d.page.get_by_test_id("stSidebar").get_by_role("button", name="New chat").click()
        d.idle()
    d.page.set_viewport_size({"width": WIDTH, "height": 860})
    d.page.reload()
    d.idle()
    _open_sidebar(d)


def test_a_chat_row_keeps_its_menu_beside_its_title(phone):
    d, page = phone, phone.page
    _two_chats_then_phone(d)
    sidebar = page.get_by_test_id("stSidebar")
    title = sidebar.get_by_role("button", name="first question about leave").first
    # its ⋮ menu: the popover in the nearest block around the title that holds one
    menu = title.locator("xpath=ancestor::*[.//*[@data-testid='stPopover']][1]").get_by_test_id("stPopover").first
    t_box, m_box = title.bounding_box(), menu.bounding_box()
    assert abs((t_box["y"] + t_box["height"] / 2) - (m_box["y"] + m_box["height"] / 2)) < 8, (t_box, m_box)
    assert m_box["x"] > t_box["x"]
    d.shot("phone-chat-history")


def test_choosing_a_chat_puts_the_sidebar_away(phone):
    d, page = phone, phone.page
    _two_chats_then_phone(d)
    page.get_by_test_id("stSidebar").get_by_role("button", name="first question about leave").first.click()
    d.idle()
    d.expect(page.get_by_test_id("stSidebarNav")).not_to_be_in_viewport(timeout=10_000)
    d.expect(page.get_by_test_id("stChatMessage").filter(has_text="first question about leave").first).to_be_visible()
    d.shot("phone-chat-chosen")


def _tabs_fit(d: Driver, where: str) -> None:
    tabs = d.page.get_by_test_id("stMain").get_by_role("tab").filter(visible=True)
    assert tabs.count() >= 5, where
    for tab in tabs.all():
        box = tab.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, f"{where}: tab {tab.inner_text()!r} is cut: {box}"
    lists = d.page.get_by_test_id("stMain").get_by_role("tablist").filter(visible=True)
    for tab_list in lists.all():
        assert tab_list.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), f"{where}: the tab list scrolls"


def test_every_tab_label_is_whole_and_on_screen_in_both_languages(phone):
    d, page = phone, phone.page
    d.nav("Knowledge Bases")
    d.fill("Name", "phone-kb")
    d.click("Create")
    d.see("Files go to “phone-kb”.")
    d.idle()
    page.set_viewport_size({"width": WIDTH, "height": 860})
    for lang, settings, kbs in (("zh", "文档设置", "知识库"), ("en", "Documents Settings", "Knowledge Bases")):
        _language(d, lang)
        for title in (settings, kbs):
            _open_sidebar(d)
            page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
            d.expect(page.get_by_role("heading", name=title).first).to_be_visible()
            d.idle()
            _tabs_fit(d, f"{lang} {title}")
            d.shot(f"phone-tabs-{lang}-{'settings' if title == settings else 'kbs'}")
