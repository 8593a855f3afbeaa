"""Issue 18 in a real browser: the dashboard speaks only to its own server (no font, icon or
metrics request to a third party, on any page, in either language), and the first visit to an
empty install opens on "Create account".

Requests to any other host are recorded and aborted in the browser, so a failing run sends no
packet off this machine either."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import serve_app
from tests.e2e.test_browser import Driver

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

PAGES = {"en": ["Chat", "Knowledge Bases", "File Manager", "Documents Settings", "Strict A/B compare", "Google Drive"],
         "zh": ["对话", "知识库", "文件管理", "文档设置", "严格模式 A/B 对比", "谷歌云端硬盘"]}


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from serve_app(tmp_path_factory.mktemp("e2e-own-server"),
                         {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64"})


class Recorder:
    """Every request the page makes, by host; anything not for the app's own host is aborted."""

    def __init__(self, context, own: str):
        self.own, self.seen, self.foreign = own, set(), []
        context.route("**/*", self._route)
        context.on("request", self._note)

    def _host(self, url: str) -> str | None:
        parts = urlsplit(url)
        return parts.netloc if parts.scheme in ("http", "https", "ws", "wss") else None  # data:, blob: stay local

    def _note(self, request) -> None:
        host = self._host(request.url)
        if host:
            self.seen.add(host)
            if host != self.own:
                self.foreign.append(request.url)

    def _route(self, route) -> None:
        host = self._host(route.request.url)
        if host and host != self.own:
            self.foreign.append(route.request.url)
            route.abort()
        else:
            route.continue_()


def test_first_visit_to_an_empty_install_opens_on_create_account(app_url, browser, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    d = Driver(page, artifacts)
    page.goto(app_url)
    d.see("the first account you create becomes the administrator")
    d.idle()
    d.expect(page.get_by_role("tab", name="Create account", exact=True)).to_have_attribute("aria-selected", "true")
    d.expect(page.get_by_label("Password again", exact=True)).to_be_visible()  # the sign-up form, without a click
    context.close()


def test_no_request_leaves_for_another_host_on_any_page_in_either_language(app_url, browser, artifacts):
    own = urlsplit(app_url).netloc
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    recorder = Recorder(context, own)
    page = context.new_page()
    d = Driver(page, artifacts)
    d.n = 40
    page.goto(app_url)
    d.see("Sign in")
    d.idle()
    page.get_by_role("radio", name="中文").or_(page.get_by_role("button", name="中文")).first.click()
    d.see("登录")
    d.idle()
    page.get_by_role("radio", name="English").or_(page.get_by_role("button", name="English")).first.click()
    d.see("Sign in")
    d.idle()
    d.click("Create account", role="tab")
    d.fill("User name", "hosts")
    d.fill("Password", "correct horse 1")
    d.fill("Password again", "correct horse 1")
    d.click("Create account")
    d.see("hosts ·")
    d.idle()
    icons: set[str] = set()
    for lang in ("en", "zh"):
        if lang == "zh":
            page.get_by_test_id("stSidebar").get_by_role("combobox", name="Language").click()
            page.get_by_role("option", name="中文").click()
            d.see("严格模式 A/B 对比")
            d.idle()
        for title in PAGES[lang]:
            d.nav(title)
            icons.add(page.evaluate("[...document.querySelectorAll('link[rel*=icon]')].map(l => l.href).join(' ')"))
    page.wait_for_load_state("networkidle")
    foreign_icons = [i for i in icons for url in i.split() if recorder._host(url) not in (None, own)]
    assert not foreign_icons, f"the page icon comes from another host: {foreign_icons}"
    assert recorder.seen == {own}, f"requests to other hosts: {sorted(set(recorder.foreign))}"
    assert not recorder.foreign, sorted(set(recorder.foreign))
    context.close()
