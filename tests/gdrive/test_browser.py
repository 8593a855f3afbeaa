"""The Google Drive page in a real browser (Debian chromium + playwright) over a served app:
connect through the fake Google consent redirect, browse, import a folder with watch, sync,
the sync log. Screenshots go to $RAGDESK_E2E_ARTIFACTS (or a printed temp folder)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import _free_port, artifacts, browser, serve_app  # noqa: F401 (fixtures)
from tests.e2e.test_browser import Driver
from tests.fakes.drive_server import DOC, FakeDrive
from tests.gdrive.conftest import OPEN_FAKE_DRIVE_ENV

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]


def choose_option(d, select, name: str) -> None:
    """Open a multiselect with one click and pick ``name``. It is scrolled into view first, as a
    person would: a scroll that lands just after the click (the one Playwright makes to reach an
    element below the fold) closes a list that has just opened."""
    select.scroll_into_view_if_needed()
    d.expect(select).to_be_in_viewport()
    select.click()
    d.page.get_by_role("option", name=name).click()


@pytest.fixture(scope="module")
def drive_app(tmp_path_factory):
    port = _free_port()
    app_url = f"http://127.0.0.1:{port}"
    with FakeDrive(max_page=2) as drive:
        env = {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
               **{f"RAGDESK_GDRIVE__{k.upper()}": str(v) for k, v in drive.settings(f"{app_url}/google_drive").items()},
               **OPEN_FAKE_DRIVE_ENV}
        for url in serve_app(tmp_path_factory.mktemp("gdrive-e2e"), env, port=port):
            yield url, drive


def test_drive_page_in_chromium(drive_app, browser, artifacts):  # noqa: F811
    app_url, drive = drive_app
    team = drive.folder("Team")
    drive.add("Plan", DOC, team, exports={"text/markdown": "# Plan\n\nShip the heron release in May. 五月发布。".encode()})
    drive.add("notes.txt", "text/plain", team, content=b"Standup at nine, wren room.")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    d = Driver(page, artifacts)
    page.goto(app_url)
    d.see("the first account you create becomes the administrator")
    d.click("Create account", role="tab")
    d.fill("User name", "alice")
    d.fill("Password", "correct horse 1")
    d.fill("Password again", "correct horse 1")
    d.click("Create account")
    d.see("alice · admin")
    d.nav("Knowledge Bases")
    d.fill("Name", "team")
    d.click("Create")
    d.see("No files in this knowledge base yet.")

    d.nav("Google Drive")
    d.click("Connect Google Drive")
    link = d.wait_for(page.get_by_role("link", name="Continue to Google"))
    d.shot("gdrive-connect")
    consent = link.get_attribute("href")
    assert consent.startswith(drive.url)
    page.goto(consent)  # the fake consent screen agrees at once and redirects back to the page
    assert "/google_drive?code=" in page.url
    # the session cookie keeps alice signed in across Google's redirect: the exchange finishes here
    d.see("Connected as alice@example.com")
    d.shot("gdrive-back-from-google")
    d.shot("gdrive-connected")

    d.click("Open Team")
    d.wait_for(page.get_by_role("button", name="My Drive ›"))  # the breadcrumb; the table draws on a canvas
    d.shot("gdrive-browse-folder")
    d.click("My Drive ›")
    d.wait_for(page.get_by_role("button", name="Open Team"))  # back at the root: the folder is listed again
    d.idle()
    choose_option(d, page.get_by_role("combobox", name="Select files and folders to import"), "📁 Team")
    page.keyboard.press("Escape")
    page.get_by_text("Keep in sync (watch)").click()
    d.idle()
    d.click("Import")
    d.see("2 added", timeout=180_000)
    d.shot("gdrive-imported")

    drive.add("extra.txt", "text/plain", team, content=b"A third file, kestrel.")
    d.click("Synced sources & log", role="tab")
    d.click("Sync now")
    d.see("1 added", timeout=180_000)
    d.click("Synced sources & log", role="tab")
    d.see("Sync log")
    d.shot("gdrive-sync-log")
    assert len(list(artifacts.glob("*gdrive-*.png"))) >= 5
