"""Issue 14 in a real browser, over the hash test embedder (fast): the first run (empty Chat
says what to do, "Load the demo"), the A/B batch on the demo questions, screenshots of every
page in both languages at 1280 px and 420 px (the sidebar closing after navigating on a phone),
and a new knowledge base becoming the selected one so an upload lands where the page says."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_browser import Driver

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

PAGES = {"en": ["Chat", "Knowledge Bases", "Assistants", "File Manager", "Documents Settings", "Strict A/B compare"],
         "zh": ["对话", "知识库", "助手", "文件管理", "文档设置", "严格模式 A/B 对比"]}
SLUGS = ["chat", "kbs", "assistants", "files", "settings", "ab"]
SLOW = 180_000  # ms: first use of the embedder and the answerer in the served process


def _enter(d: Driver, url: str) -> None:
    """Sign up the admin on a fresh install, or sign in."""
    d.page.goto(url)
    d.see("Sign in")
    d.idle()
    if d.page.get_by_text("the first account you create becomes the administrator").count():
        d.click("Create account", role="tab")
        d.fill("User name", "admin")
        d.fill("Password", "correct horse 1")
        d.fill("Password again", "correct horse 1")
        d.click("Create account")
    else:
        d.fill("User name", "admin")
        d.fill("Password", "correct horse 1")
        d.click("Sign in")
    d.see("admin ·")
    d.idle()


def _nav_phone(d: Driver, title: str) -> None:
    """On a phone the sidebar overlays the page: open it, pick the page, and it must close by itself."""
    link = d.page.get_by_test_id("stSidebarNav").get_by_role("link", name=title)
    box = link.bounding_box()
    if box is None or box["x"] + box["width"] <= 0:
        d.page.get_by_test_id("stExpandSidebarButton").click()
        d.expect(link).to_be_in_viewport()
        d.page.wait_for_timeout(600)  # the sidebar slides in
    already_there = link.get_attribute("aria-current") == "page"  # no navigation happens then
    link.click(force=True)
    d.expect(d.page.get_by_role("heading", name=title).first).to_be_visible(timeout=60_000)
    d.idle()
    if already_there:
        d.page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    d.expect(link).not_to_be_in_viewport(timeout=10_000)


def _language(d: Driver, code: str) -> None:
    page = d.page
    expand = page.get_by_test_id("stExpandSidebarButton")
    if expand.is_visible():
        expand.click()
        page.wait_for_timeout(600)  # the sidebar slides in
    box = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Language").or_(
        page.get_by_test_id("stSidebar").get_by_role("combobox", name="语言")).first
    d.expect(box).to_be_in_viewport()
    box.click(force=True)
    page.get_by_role("option", name="中文" if code == "zh" else "English").click()
    d.see("严格模式" if code == "zh" else "Strict A/B compare")
    d.idle()


def test_first_run_demo_ab_and_every_page_in_both_languages_and_widths(fast_server, browser, artifacts):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    d = Driver(page, artifacts)
    _enter(d, fast_server)
    d.see("Start here")  # an empty Chat says what to do first
    d.shot("first-run-chat")
    d.click("Load the demo")
    d.see("Demo loaded", timeout=SLOW)
    # a question the hash test vectors match on both channels (over them the annual-leave one is a
    # weak match, badged as such: core/answering/confidence.py)
    d.ask("How many unused leave days can be carried over?")
    d.see("carried over to the next year", timeout=SLOW)
    d.idle(timeout=SLOW)
    d.see("from the knowledge base")
    d.shot("demo-chat-answer")

    d.nav("Strict A/B compare")
    d.click("Batch", role="tab")
    d.click("Run the demo questions")
    d.see(" questions", timeout=SLOW)
    d.idle(timeout=SLOW)
    d.see("answered with the expected fact")
    d.expect(page.get_by_role("button", name="Download HTML report")).to_be_visible()
    d.shot("ab-batch-demo")
    page.get_by_text("Only questions where the modes differ").click()
    d.idle()
    d.shot("ab-batch-differ")

    d.nav("Knowledge Bases")
    d.click("Retrieval test", role="tab")
    d.fill("Query", "annual leave carried over")
    d.click("Search")
    d.see("Showing ")
    d.wait_for(page.locator(".ragdesk-passage mark").first)
    d.shot("kb-retrieval-test-1280")
    page.close()

    for width in (1280, 420):
        page = browser.new_page(viewport={"width": width, "height": 860})
        d, shots = Driver(page, artifacts), d.n
        d.n = shots
        _enter(d, fast_server)
        for lang in ("en", "zh"):
            _language(d, lang)
            if width < 1000:
                d.idle()
                page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
                d.expect(page.get_by_test_id("stSidebarNav")).not_to_be_in_viewport()
            for title, slug in zip(PAGES[lang], SLUGS):
                if width < 1000:
                    _nav_phone(d, title)
                else:
                    d.nav(title)
                overflow = page.evaluate("(() => { const m = document.querySelector('[data-testid=stMainBlockContainer]');"
                                         " return m.scrollWidth - m.clientWidth; })()")
                assert overflow <= 1, f"{title} scrolls sideways by {overflow}px at {width}px"
                d.shot(f"{lang}-{width}-{slug}")
        if width < 1000:  # the retrieval test's passages on a phone: wrapped, marked, nothing cut off
            _language(d, "en")
            d.idle()
            page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
            d.expect(page.get_by_test_id("stSidebarNav")).not_to_be_in_viewport()
            _nav_phone(d, "Knowledge Bases")
            d.click("Retrieval test", role="tab")
            d.fill("Query", "年假 结转")
            d.click("Search")
            passage = d.wait_for(page.locator(".ragdesk-passage").first)
            box = passage.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
            d.shot("en-420-kb-retrieval-test")
        page.close()


def test_a_new_knowledge_base_is_selected_and_the_upload_lands_there(fresh_fast_server, browser, artifacts, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    d = Driver(page, artifacts)
    d.n = 80
    _enter(d, fresh_fast_server)
    d.nav("Knowledge Bases")
    for name in ("first-kb", "second-kb"):
        if name == "second-kb":  # once one exists, the create form sits in a closed section
            page.get_by_text("New knowledge base").first.click()
        d.fill("Name", name)
        d.idle()
        d.click("Create")  # once, as a person does
        d.see(f"Created “{name}”")
        d.idle()
    picker = page.get_by_role("combobox", name="Knowledge base", exact=True)
    d.expect(picker).to_have_value(re.compile(r"^second-kb"))  # the browser shows the new one, not the previous
    d.see("Files go to “second-kb”.")
    doc = tmp_path / "canteen.md"
    doc.write_text("# Canteen\n\nLunch is served from 11:30 to 13:00 on workdays.\n", encoding="utf-8")
    page.get_by_label("Add files", exact=True).get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(doc)])
    d.expect(page.get_by_role("button", name="Remove canteen.md")).to_be_visible()
    d.click("Upload and index")
    d.see("1 of 1 file indexed or already present in “second-kb”.", timeout=SLOW)
    d.idle()
    d.expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    d.shot("kb-upload-lands-in-new-kb")
    d.nav("File Manager")
    d.expect(page.get_by_text("canteen.md", exact=True).first).to_be_attached()  # tables draw on a canvas
    d.shot("file-manager-after-upload")
