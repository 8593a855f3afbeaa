"""The knowledge-base picker says the visibility just saved, in a real browser, one click each
(issue 36: after "Update sharing" it read "(private)" until the page was left). The browser keeps
showing the label it holds for a select box unless the page sends the value with its new label."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import Driver
from tests.e2e.test_pages import _enter

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(600)]


def test_the_picker_shows_a_saved_visibility_at_once(fresh_fast_server, browser, artifacts):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    d = Driver(page, artifacts)
    d.n = 90
    _enter(d, fresh_fast_server)
    d.nav("Knowledge Bases")
    d.fill("Name", "policies")
    d.click("Create")
    d.see("Files go to “policies”.")
    d.idle()
    picker = page.get_by_role("combobox", name="Knowledge base", exact=True)
    d.expect(picker).to_have_value("policies (private)")
    d.click("Edit & share", role="tab")
    panel = page.get_by_role("tabpanel").filter(visible=True)
    panel.get_by_role("combobox", name="Visibility", exact=True).click()
    page.keyboard.type("shared")
    page.keyboard.press("Enter")
    panel.get_by_role("button", name="Save", exact=True).first.click()
    d.see("Saved")
    d.idle()
    d.expect(picker).to_have_value("policies (shared)")
    d.shot("kb-picker-visibility")
    page.close()
