"""Curating in a real browser, strict mode on (issue 35's "done when"): the admin sets a file's
metadata value on the Knowledge Bases page, filters a chat by it, edits the chunk that answers in
the File Manager, and picks an assistant whose preset carries the same filter: it answers from the
edited chunk, and its refusal text answers what its scope does not. Each step is done once, as a
person would. Setup a person does once (the knowledge base, its files, a field, an assistant) goes
through the CLI, handed off to the dashboard."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import run_cli
from tests.e2e.conftest import pick, serve_app
from tests.e2e.test_sessions import Tab

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]

LISBON = "# Lisbon office\n\nThe hotel cap for the Lisbon office is 180 EUR per night."
PORTO = "# Porto office\n\nThe hotel cap for the Porto office is 120 EUR per night."
EDITED = "The hotel cap for the Porto office is 135 EUR per night."
REFUSAL = "This assistant only answers questions about the Porto office's travel."
QUESTION = "What is the hotel cap per night?"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    data = tmp_path_factory.mktemp("e2e-curate") / "data"
    data.mkdir()
    for url in serve_app(data, {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
                                "RAGDESK_STRICT__RAG_STRICT_MODE": "true"}):
        yield url, data


def _ask(tab: Tab, question: str) -> None:
    box = tab.page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    box.press("Enter")


def _last_answer(tab: Tab):
    return tab.page.get_by_test_id("stChatMessage").last


def _pick(tab: Tab, label: str, option: str) -> None:
    pick(tab.page, tab.page.get_by_role("combobox", name=label, exact=True).filter(visible=True).first, option)
    tab.idle()


def _go(tab: Tab, page_name: str) -> None:
    """Open a page and wait for it to show, as a person does: right after the click the old page
    is still there and idle, so acting then reaches the old page (or a list a rerun closes)."""
    tab.page.get_by_test_id("stSidebarNav").get_by_role("link", name=page_name).click()
    tab.expect(tab.page.get_by_role("heading", name=page_name).first).to_be_visible(timeout=60_000)
    tab.idle()


def test_set_a_field_filter_a_chat_edit_a_chunk_and_pick_an_assistant(app, browser, tmp_path):
    url, data = app
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    tab = Tab(context.new_page())
    tab.page.goto(url)
    tab.sign_up("admin")
    files = []
    for name, text in (("lisbon.md", LISBON), ("porto.md", PORTO)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(str(tmp_path / name))
    run_cli(data, "kb", "create", "offices", "--visibility", "public")  # handed off to the dashboard
    run_cli(data, "ingest", "--kb", "offices", *files)
    run_cli(data, "fields", "add", "--kb", "offices", "office", "text")
    run_cli(data, "assistants", "create", "porto-desk", "--kb", "offices", "--mode", "strict", "--where",
            "office=porto", "--refusal-text", REFUSAL, "--visibility", "public")

    # set the field on the Porto file
    _go(tab, "Knowledge Bases")
    tab.page.get_by_role("tab", name="Metadata").click()
    tab.idle()
    _pick(tab, "File", "porto.md")
    tab.page.get_by_label("office (text)", exact=True).fill("porto")
    tab.click("Save values")
    tab.see("Values of 'porto.md' saved.")

    # a chat filtered by it answers from the Porto file alone
    _go(tab, "Chat")
    tab.page.get_by_label("Filter", exact=True).fill("office=porto")
    _ask(tab, QUESTION)
    tab.expect(_last_answer(tab).get_by_text("120 EUR", exact=False).first).to_be_visible(timeout=60_000)
    tab.expect(_last_answer(tab)).not_to_contain_text("180 EUR")

    # edit the chunk that answered
    _go(tab, "File Manager")
    _pick(tab, "File", "porto.md · offices")
    chunk = tab.page.get_by_test_id("stExpander").filter(has_text="120 EUR").first
    chunk.locator("summary").click()
    chunk.get_by_label("Text", exact=True).fill(EDITED)
    chunk.get_by_role("button", name="Save chunk").click()
    tab.see("saved and re-indexed")

    # the assistant carries the filter: it answers from the edited chunk, never from Lisbon's file
    _go(tab, "Chat")
    _pick(tab, "Assistant", "porto-desk")
    tab.see("Only files matching its filter: office=porto")
    _ask(tab, QUESTION)
    tab.expect(_last_answer(tab).get_by_text("135 EUR", exact=False).first).to_be_visible(timeout=60_000)
    tab.expect(_last_answer(tab)).not_to_contain_text("180 EUR")
    tab.expect(_last_answer(tab)).not_to_contain_text("120 EUR")
    # what nothing inside its scope answers gets its refusal text (strict: no model is configured at all)
    _ask(tab, "What is the capital of Peru?")
    tab.expect(_last_answer(tab).get_by_text(REFUSAL, exact=False).first).to_be_visible(timeout=60_000)
    context.close()
