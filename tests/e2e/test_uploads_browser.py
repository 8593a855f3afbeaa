"""Upload results in a real browser, one click each (issue 18): a file over the size limit is
kept back by the browser, the picker saying why (issue 36), each failed file is said
once, and a cancelled file's row says "cancelling…" at once and then its final state — never
"waiting to start" again while the rest of the batch runs."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import serve_app
from tests.e2e.test_browser import Driver
from tests.e2e.test_pages import _enter

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]

# Small chunks and a 1 MB upload limit: a 0.6 MB file is thousands of chunks (seconds of work),
# a 1.3 MB one is over the limit.
ENV = {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
       "RAGDESK_PARSING__MAX_UPLOAD_MB": "1", "RAGDESK_CHUNKING__CHUNK_SIZE": "100",
       "RAGDESK_CHUNKING__CHUNK_OVERLAP": "0", "RAGDESK_PARSING__MAX_CHUNKS_PER_FILE": "50000"}


@pytest.fixture
def app_url(tmp_path_factory):
    # a server per test: each starts with no knowledge base, so the create form is open
    yield from serve_app(tmp_path_factory.mktemp("e2e-uploads"), ENV)


def _text_of(megabytes: float, topic: str) -> bytes:
    line = f"The {topic} rule number {{i}} applies to team {{t}} on weekdays only.\n\n"
    out, i = [], 0
    while sum(map(len, out)) < megabytes * 1024 * 1024:
        out.append(line.format(i=i, t=i % 7))
        i += 1
    return "".join(out).encode()


def _new_kb(d: Driver, name: str) -> None:
    d.nav("Knowledge Bases")
    d.fill("Name", name)  # the first knowledge base: its create form is open
    d.click("Create")
    d.see(f"Files go to “{name}”.")
    d.idle()


def _pick(d: Driver, paths) -> None:
    d.page.get_by_label("Add files", exact=True).get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(p) for p in paths])
    for p in paths:
        d.expect(d.page.get_by_role("button", name=f"Remove {p.name}")).to_be_visible()


@pytest.fixture
def signed_in(app_url, browser, artifacts):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    d = Driver(page, artifacts)
    d.n = 70
    _enter(d, app_url)
    yield d
    page.close()


def test_a_file_over_the_limit_is_refused_before_it_is_sent_and_each_failure_is_said_once(signed_in, tmp_path):
    """Issue 36: the picker said "200MB per file" with a 1 MB limit, and a larger file was sent
    whole before the engine refused it. Now the picker states the limit and the browser keeps the
    larger file back (it never reaches the engine, so no row for it); each failure is said once."""
    d, page = signed_in, signed_in.page
    _new_kb(d, "results")
    ok, bad, big = tmp_path / "ok.md", tmp_path / "bad.pdf", tmp_path / "big.md"
    ok.write_text("# Canteen\n\nLunch is served from 11:30 to 13:00.\n", encoding="utf-8")
    bad.write_bytes(b"%PDF-1.4\nthis is not really a PDF\n")
    big.write_bytes(_text_of(1.3, "oversize"))
    picker = page.get_by_label("Add files", exact=True)
    d.expect(picker.get_by_test_id("stFileUploaderDropzoneInstructions")).to_contain_text("1MB per file")
    d.see("Largest file: 1 MB")
    _pick(d, [ok, bad, big])
    d.expect(picker.get_by_text("File must be", exact=False)).to_have_count(1)  # big.md, said by the picker
    d.click("Upload and index")
    d.see("1 of 2 files indexed or already present in “results”.", timeout=120_000)
    d.idle()
    d.expect(page.get_by_text("bad.pdf — failed", exact=False)).to_have_count(1)
    d.expect(page.get_by_role("button", name="Retry")).to_have_count(1)  # the PDF's original is kept
    d.expect(page.get_by_text("big.md", exact=False)).to_have_count(0)  # never sent, so never listed
    d.shot("upload-refused-in-the-browser")


RECORD_ROWS = """() => { window.__rows = []; const seen = new Set();
  const note = () => document.querySelectorAll('[data-testid=stProgress], [data-testid=stCaptionContainer]').forEach(p => {
    const text = p.innerText.trim(); if (!seen.has(text)) { seen.add(text); window.__rows.push(text); } });
  new MutationObserver(note).observe(document.body, {childList: true, subtree: true, characterData: true}); note(); }"""


def test_a_cancelled_file_shows_cancelling_then_its_final_state(signed_in, tmp_path):
    d, page = signed_in, signed_in.page
    _new_kb(d, "cancels")
    first, second = tmp_path / "first.md", tmp_path / "second.md"
    first.write_bytes(_text_of(0.6, "first"))
    second.write_bytes(_text_of(0.6, "second"))
    _pick(d, [first, second])
    d.click("Upload and index")
    cancel_first = page.get_by_test_id("stHorizontalBlock").filter(has=page.get_by_text("first.md —")).get_by_role(
        "button", name="Cancel")
    d.wait_for(cancel_first, timeout=120_000)
    page.evaluate(RECORD_ROWS)
    cancel_first.click()
    # its final state, while second.md runs (the "cancelling…" in between may last only a moment here)
    d.wait_for(page.get_by_text("first.md — cancelled"), timeout=120_000)
    cancel_second = page.get_by_test_id("stHorizontalBlock").filter(has=page.get_by_text("second.md —")).get_by_role(
        "button", name="Cancel")
    d.wait_for(cancel_second, timeout=120_000)
    cancel_second.click()
    d.see("0 of 2 files indexed or already present in “cancels”.", timeout=120_000)
    d.idle()
    rows = page.evaluate("window.__rows")
    assert "cancelling…" in rows, rows  # drawn by the click's own run, in place of the button
    assert not [r for r in rows if r.startswith("first.md") and "waiting to start" in r], rows
    d.expect(page.get_by_text("first.md — cancelled", exact=False)).to_have_count(1)  # the file list's line only
    d.shot("upload-cancelled")
