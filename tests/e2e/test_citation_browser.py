"""A citation you can see (issue 21), in a real browser at 420 px: upload a PDF, ask in strict
mode, click the citation, and the page image with the passage highlighted is shown, served by
the app itself and as wide as the phone's screen at most."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.citations.test_pdf_view import _text_pdf
from tests.e2e.conftest import serve_app
from tests.e2e.test_browser import Driver
from tests.e2e.test_pages import _enter

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

WIDTH = 420


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from serve_app(tmp_path_factory.mktemp("e2e-cite"), {
        "RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
        "RAGDESK_CHUNKING__CHUNK_SIZE": "160", "RAGDESK_CHUNKING__CHUNK_OVERLAP": "0",
        "RAGDESK_STRICT__RAG_STRICT_MODE": "true", "RAGDESK_STRICT__RAG_STRICT_MIN_SIMILARITY": "0.3"})


def test_clicking_a_citation_shows_the_rendered_page_with_the_passage_highlighted(app_url, browser, artifacts, tmp_path):
    pdf = tmp_path / "travel.pdf"
    pdf.write_bytes(_text_pdf())
    page = browser.new_page(viewport={"width": WIDTH, "height": 860})
    d = Driver(page, artifacts)
    d.n = 95
    _enter(d, app_url)
    d.nav("Knowledge Bases")
    d.fill("Name", "travel")
    d.click("Create")
    d.see("No files in this knowledge base yet.")
    page.get_by_label("Add files", exact=True).get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(pdf)])
    d.expect(page.get_by_role("button", name="Remove travel.pdf")).to_be_visible()
    d.click("Upload and index")
    d.see("1 of 1 file indexed", timeout=120_000)
    d.idle()

    d.nav("Chat")
    d.ask("How much may a hotel cost per night?")
    d.idle(timeout=120_000)
    citation = page.get_by_test_id("stExpander").filter(has_text="travel.pdf · p. 1").first
    d.wait_for(citation)
    assert citation.get_by_test_id("stImage").count() == 0  # closed: nothing rendered yet
    citation.locator("summary").click()
    image = d.wait_for(citation.get_by_test_id("stImage").locator("img").nth(1), timeout=60_000)  # the whole page
    d.expect(citation.get_by_text("Page 1 of 2")).to_be_visible()
    d.idle()
    loaded = page.wait_for_function("img => img.complete && img.naturalWidth > 0 && img.naturalWidth", arg=image.element_handle())
    assert loaded.json_value() >= 800  # the page rendered at reading size, shown scaled to the screen
    source = urlparse(image.get_attribute("src") or "")
    assert not source.netloc or source.netloc == urlparse(app_url).netloc  # from the app's own server
    for shown in citation.get_by_test_id("stImage").locator("img").all():  # the close-up and the page fit
        box = shown.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH + 1
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH + 1  # no sideways scrolling
    d.shot("citation-pdf-page-420px")
