"""Chunk editing in a real browser, strict mode on: the admin opens the File Manager, edits a chunk
in place, and Chat then answers from the edited text (the old passage is gone from the index)."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import as_json, run_cli
from tests.e2e.conftest import serve_app
from tests.e2e.test_sessions import Tab

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]

DOC = "# Office\n\n## Parking\n\nVisitors park in the north garage on level two.\n\n## Lunch\n\nThe canteen serves lunch at noon."
NEW = "Visitors park in the zeppelin hangar on level nine."


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    data = tmp_path_factory.mktemp("e2e-chunks") / "data"
    data.mkdir()
    for url in serve_app(data, {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
                                "RAGDESK_STRICT__RAG_STRICT_MODE": "true",
                                "RAGDESK_CHUNKING__CHUNK_SIZE": "60", "RAGDESK_CHUNKING__CHUNK_OVERLAP": "0"}):
        yield url, data


def test_edit_a_chunk_in_the_file_manager_and_chat_answers_from_it(app, browser, tmp_path):
    url, data = app
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    tab = Tab(context.new_page())
    page = tab.page
    page.goto(url)
    tab.sign_up("admin")
    doc = tmp_path / "office.md"
    doc.write_text(DOC, encoding="utf-8")
    env = {"RAGDESK_CHUNKING__CHUNK_SIZE": "60", "RAGDESK_CHUNKING__CHUNK_OVERLAP": "0"}
    run_cli(data, "kb", "create", "office", "--visibility", "public", env_extra=env)  # handed off to the dashboard
    run_cli(data, "ingest", "--kb", "office", str(doc), env_extra=env)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="File Manager").click()
    tab.idle()
    tab.see("Chunks")
    chunk = page.get_by_test_id("stExpander").filter(has_text="north garage").first
    chunk.locator("summary").click()
    chunk.get_by_label("Text", exact=True).fill(NEW)
    chunk.get_by_role("button", name="Save chunk").click()
    tab.see("saved and re-indexed")
    tab.idle()
    hits = as_json(run_cli(data, "--json", "search", "--kb", "office", "--mode", "bm25", "--min-score", "0",
                           "north garage zeppelin", env_extra=env))["hits"]
    assert [h["text"] for h in hits][:1] == [NEW] and not any("north garage" in h["text"] for h in hits)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Chat").click()
    tab.idle()
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill("Where do visitors park in the hangar?")  # only the edited text says "hangar"
    box.press("Enter")
    tab.expect(page.get_by_test_id("stChatMessage").last.get_by_text("zeppelin hangar", exact=False).first).to_be_visible(timeout=60_000)
    context.close()
