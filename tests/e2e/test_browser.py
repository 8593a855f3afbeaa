"""The served app in a real browser: sign up, build a knowledge base from the Chinese
regulation and a PDF, strict mode on, a cited answer, the fixed no-hit reply, the A/B page,
at 1280×800 and on a narrow window. Screenshots of every page go to the printed folder."""

from __future__ import annotations

import pytest

from tests.conftest import shared_path

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(1500)]

NO_HIT = "知识库中暂未收录相关内容，我无法凭已有信息作答。"
ON_TOPIC = "当事人在什么情况下可以向人民检察院申请监督？"
OFF_TOPIC = "今天天气怎么样？"
LONG = 600_000  # ms: first use loads the embedding model and indexes the files on 2 shared cores


class Driver:
    def __init__(self, page, folder):
        from playwright.sync_api import expect

        self.page, self.folder, self.expect, self.n = page, folder, expect, 0

    def shot(self, name: str) -> None:
        """The whole page: Streamlit scrolls inside its main block, so grow the window to fit it."""
        self.idle()
        self.n += 1
        size = self.page.viewport_size
        height = self.page.evaluate(
            "Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer]')]"
            ".map(e => e.scrollHeight), document.body.scrollHeight)")
        self.page.set_viewport_size({"width": size["width"], "height": min(max(height, size["height"]), 6000)})
        # tables load behind a skeleton and draw on a canvas: wait until each visible one has drawn
        self.page.wait_for_function(
            "() => ![...document.querySelectorAll('[data-testid=stSkeleton]')].some(e => e.offsetWidth > 0) &&"
            " [...document.querySelectorAll('[data-testid=stDataFrame]')].filter(t => t.offsetWidth > 0 && t.checkVisibility())"
            ".every(t => [...t.querySelectorAll('canvas')].some(c => c.height > 0))", timeout=30_000)
        self.page.screenshot(path=str(self.folder / f"{self.n:02d}-{name}.png"))
        self.page.set_viewport_size(size)

    def see(self, text: str, timeout: int = 60_000):
        """Wait for text; an error message on the page instead fails at once, with its text."""
        return self.wait_for(self.page.get_by_text(text, exact=False).first, timeout)

    def wait_for(self, loc, timeout: int = 60_000):
        error = self.page.get_by_test_id("stAlertContentError").first
        self.expect(loc.or_(error).first).to_be_visible(timeout=timeout)
        if error.is_visible() and not loc.is_visible():
            raise AssertionError(f"the page shows an error: {error.inner_text()}")
        return loc

    def idle(self, timeout: int = 60_000) -> None:
        """The script run finished and no element from the previous run is left (stale)."""
        self.page.wait_for_function(
            "() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') === 'notRunning'"
            " && !document.querySelector('[data-stale=true]')", timeout=timeout)

    def nav(self, title: str) -> None:
        link = self.page.get_by_test_id("stSidebarNav").get_by_role("link", name=title)
        box = link.bounding_box()
        slid_away = box is None or box["x"] + box["width"] <= 0  # narrow windows start with it hidden
        if slid_away:
            self.page.get_by_test_id("stExpandSidebarButton").click()
            self.expect(link).to_be_in_viewport()
        link.click()
        self.expect(self.page.get_by_role("heading", name=title).first).to_be_visible(timeout=60_000)
        self.idle()
        if slid_away:  # the sidebar overlays the page on a phone: the app puts it away after navigating
            self.expect(link).not_to_be_in_viewport(timeout=10_000)

    def fill(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).filter(visible=True).first.fill(value)

    def click(self, name: str, role: str = "button") -> None:
        self.page.get_by_role(role, name=name, exact=True).filter(visible=True).first.click()

    def ask(self, question: str) -> None:
        box = self.page.get_by_test_id("stChatInputTextArea")
        box.fill(question)
        box.press("Enter")


def test_full_flow_in_chromium(server, browser, artifacts):
    policy = next(shared_path("zh-policy").glob("*.md"))
    pdf = shared_path("docs", "unstructured__multi-column-2p.pdf")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    d = Driver(page, artifacts)
    page.goto(server)
    d.see("the first account you create becomes the administrator")
    d.idle()
    d.shot("sign-in")

    d.click("Create account", role="tab")
    d.fill("User name", "admin")
    d.fill("Password", "correct horse 1")
    d.fill("Password again", "correct horse 1")
    d.click("Create account")
    d.see("admin · admin")
    d.see("Normal mode")
    d.idle()
    d.shot("chat-empty")

    d.nav("Knowledge Bases")
    d.fill("Name", "检察规则")
    d.click("Create")
    d.see("No files in this knowledge base yet.")
    page.get_by_label("Add files", exact=True).get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(policy), str(pdf)])
    d.expect(page.get_by_role("button", name=f"Remove {pdf.name}")).to_be_visible()
    d.click("Upload and index")
    d.see("2 of 2 files indexed or already present in “检察规则”.", timeout=LONG)
    d.idle()
    d.shot("kb-uploaded")
    d.click("Chunk inspector", role="tab")
    d.see("merged from smaller pieces")
    d.shot("kb-chunks")
    d.click("Retrieval test", role="tab")
    d.fill("Query", "申请监督")
    d.click("Search")
    d.see("Showing ")
    d.idle()
    d.shot("kb-retrieval-test")
    d.click("Charts", role="tab")
    d.shot("kb-charts")

    d.nav("File Manager")
    d.click("Run audit")
    d.see("Database and vector store agree.")
    d.shot("file-manager")

    d.nav("Documents Settings")
    page.get_by_role("switch", name="Strict mode", exact=True).check(force=True)
    d.click("Save")  # the first Save: the strict-mode section's form
    d.see("Strict mode")
    d.see("Saved Strict mode")
    d.idle()
    d.shot("settings-strict-on")

    d.nav("Chat")
    d.ask(ON_TOPIC)
    d.wait_for(page.get_by_test_id("stChatMessage").filter(has=page.get_by_text("[1]")).first, timeout=LONG)
    d.idle(timeout=LONG)
    d.see("[1] " + policy.name)  # a citation expander naming the source
    d.shot("chat-cited-answer")
    d.ask(OFF_TOPIC)
    d.see(NO_HIT, timeout=LONG)
    d.idle(timeout=LONG)
    d.see("model not called")
    d.shot("chat-no-hit")

    d.nav("Strict A/B compare")
    d.fill("Question", ON_TOPIC)
    d.click("Compare")
    d.see("Retrieved chunks", timeout=LONG)
    d.idle(timeout=LONG)
    d.expect(page.get_by_role("heading", name="Normal", exact=True)).to_be_visible()
    d.expect(page.get_by_role("heading", name="Strict", exact=True)).to_be_visible()
    d.shot("ab-compare")

    page.close()

    # A phone-sized window, a new session: sign in, the header badge stays visible, columns stack,
    # nothing scrolls sideways, the navigation opens from the collapsed sidebar.
    narrow = browser.new_page(viewport={"width": 420, "height": 860})
    n = Driver(narrow, artifacts)
    n.n = d.n
    narrow.goto(server)
    n.see("Sign in")
    n.shot("narrow-sign-in")
    n.fill("User name", "admin")
    n.fill("Password", "correct horse 1")
    n.click("Sign in")
    n.see("Strict mode")
    n.shot("narrow-chat")
    for title, name in (("Strict A/B compare", "narrow-ab"), ("Knowledge Bases", "narrow-kbs")):
        n.nav(title)
        n.see("Strict mode")
        if title == "Strict A/B compare":  # the two columns stack on a phone
            n.fill("Question", ON_TOPIC)
            n.click("Compare")
            n.see("Retrieved chunks", timeout=LONG)
            n.idle(timeout=LONG)
            normal = narrow.get_by_role("heading", name="Normal", exact=True).bounding_box()
            strict = narrow.get_by_role("heading", name="Strict", exact=True).bounding_box()
            assert strict["y"] > normal["y"] + normal["height"], "columns should stack on a narrow window"
        overflow = narrow.evaluate("(() => { const m = document.querySelector('[data-testid=stMainBlockContainer]');"
                                   " return m.scrollWidth - m.clientWidth; })()")
        assert overflow <= 1, f"{title} scrolls sideways by {overflow}px at 420px"
        n.shot(name)
    # The user's language: Chinese UI text renders (and the badge follows it).
    narrow.get_by_test_id("stExpandSidebarButton").click()
    narrow.get_by_test_id("stSidebar").get_by_role("combobox", name="Language").click()
    narrow.get_by_role("option", name="中文").click()
    n.see("严格模式")
    n.expect(narrow.get_by_role("heading", name="知识库").first).to_be_visible()
    narrow.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    n.expect(narrow.get_by_test_id("stSidebarNav").get_by_role("link", name="知识库")).not_to_be_in_viewport()
    n.shot("narrow-kbs-chinese")
    print(f"\n{n.n} screenshots in {artifacts}")
