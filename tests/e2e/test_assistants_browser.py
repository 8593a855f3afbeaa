"""Assistants in a real browser: the admin creates a strict assistant on the Assistants page (a bad
prompt is refused with the engine's error and nothing typed is lost), then picks it in Chat, where an
off-topic question gets the assistant's own refusal text and no model call."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import run_cli
from tests.e2e.conftest import pick, serve_app
from tests.e2e.test_sessions import Tab

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]

DOC = "# Leave policy\n\n## Annual leave\n\nEvery employee has fifteen days of paid annual leave a year.\n"
REFUSAL = "The HR desk answers questions about the leave policy only."


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    data = tmp_path_factory.mktemp("e2e-assistants") / "data"
    data.mkdir()
    for url in serve_app(data, {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64"}):
        yield url, data


def test_create_an_assistant_on_its_page_and_pick_it_in_chat(app, browser, tmp_path):
    url, data = app
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    tab = Tab(context.new_page())
    page = tab.page
    page.goto(url)
    tab.sign_up("admin")
    doc = tmp_path / "leave.md"
    doc.write_text(DOC, encoding="utf-8")
    run_cli(data, "kb", "create", "hr", "--visibility", "public")  # handed off to the dashboard
    run_cli(data, "ingest", "--kb", "hr", str(doc))

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Assistants").click()
    tab.expect(page.get_by_role("heading", name="Assistants").first).to_be_visible(timeout=60_000)
    tab.idle()
    form = page.get_by_test_id("stForm").first
    form.get_by_label("Name", exact=True).fill("hr-desk")
    pick(page, form.get_by_role("combobox", name="Knowledge bases"), "hr")
    form.get_by_label("Refusal text", exact=True).fill(REFUSAL)
    form.get_by_label("Prompt template", exact=True).fill("Answer kindly.")  # no {{CONTEXT}}: refused
    form.get_by_role("button", name="Create assistant").click()
    tab.expect(page.get_by_test_id("stAlertContentError").get_by_text("CONTEXT", exact=False)).to_be_visible(
        timeout=60_000)
    tab.idle()
    # nothing typed is lost: the name and refusal are still there; only the prompt is emptied
    tab.expect(form.get_by_label("Name", exact=True)).to_have_value("hr-desk")
    tab.expect(form.get_by_label("Refusal text", exact=True)).to_have_value(REFUSAL)
    form.get_by_label("Prompt template", exact=True).fill("")
    form.get_by_role("button", name="Create assistant").click()
    tab.see("Assistant 'hr-desk' saved.")
    tab.idle()

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Chat").click()
    tab.expect(page.get_by_role("heading", name="Chat").first).to_be_visible(timeout=60_000)
    tab.idle()
    pick(page, page.get_by_role("combobox", name="Assistant"), "hr-desk")
    tab.see("in strict mode")  # its caption: the knowledge base and the mode
    tab.idle()
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill("What is the capital of Peru?")
    box.press("Enter")
    last = page.get_by_test_id("stChatMessage").last
    tab.expect(last.get_by_text(REFUSAL, exact=False).first).to_be_visible(timeout=120_000)
    tab.expect(last.get_by_text("model not called", exact=False).first).to_be_visible(timeout=60_000)
    context.close()
