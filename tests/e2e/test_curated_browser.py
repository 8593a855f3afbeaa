"""Curated answers in a real browser, strict mode on: the owner adds an approved answer on the
Knowledge Bases page, asks it in Chat, and reads it word for word with its badge "Curated answer
· approved by admin on DATE" (no model call: none is configured, and strict mode would not)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.e2e.conftest import serve_app
from tests.e2e.test_sessions import Tab

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]

QUESTION = "How many days of annual leave do new employees get?"
ANSWER = "New employees get 15 days of annual leave in their first year."


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from serve_app(tmp_path_factory.mktemp("e2e-curated"),
                         {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
                          "RAGDESK_STRICT__RAG_STRICT_MODE": "true"})


def test_add_a_curated_answer_and_get_it_in_chat(app_url, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = Tab(context.new_page())
    page = tab.page
    page.goto(app_url)
    tab.sign_up("admin")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Knowledge Bases").click()
    tab.idle()
    tab.fill("Name", "hr")
    tab.click("Create")
    tab.see("Created “hr”")
    tab.idle()
    tab.click("Curated answers", role="tab")
    tab.see("No curated answers yet.")
    tab.fill("Question", QUESTION)
    tab.fill("Approved answer", ANSWER)
    tab.click("Add curated answer")
    tab.see("Curated answer added.")
    tab.idle()

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Chat").click()
    tab.idle()
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill("how many days of annual leave do new employees get")
    box.press("Enter")
    today = datetime.now(timezone.utc).date().isoformat()
    tab.see(f"Curated answer · approved by admin on {today}")
    tab.expect(page.get_by_test_id("stChatMessage").last.get_by_text(ANSWER)).to_be_visible()
    tab.see("model not called")
    context.close()
