"""Documents Settings in a real browser, one click each (issue 18): every value typed before
Save is saved — a secret too, typed and left with Tab — and the page stays on the tab the admin
was on after a save."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.e2e.conftest import ROOT, serve_app
from tests.e2e.test_browser import Driver
from tests.e2e.test_pages import _enter

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    data = tmp_path_factory.mktemp("e2e-settings")
    for url in serve_app(data, {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64"}):
        yield url, data


def _settings_get(data, section: str) -> dict:
    """What is saved, read by the CLI (it hands the command to the serving dashboard)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY")}
    out = subprocess.run([sys.executable, "-m", "core", "settings", "get", section], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**env, "RAGDESK_DATA_DIR": str(data)})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _section(page, heading: str):
    """The innermost block holding this section's heading (its fields and its Save)."""
    return page.get_by_test_id("stVerticalBlock").filter(has=page.get_by_role("heading", name=heading, exact=True)).last


def _type_and_tab(page, field, text: str) -> None:
    field.click()
    page.keyboard.type(text)
    page.keyboard.press("Tab")


@pytest.fixture
def settings_page(app, browser, artifacts):
    url, _ = app
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    d = Driver(page, artifacts)
    d.n = 60
    _enter(d, url)
    d.nav("Documents Settings")
    yield d
    page.close()


def test_a_typed_api_key_and_model_are_both_saved_by_one_click(app, settings_page):
    d, page = settings_page, settings_page.page
    llm = _section(page, "LLM connection")
    _type_and_tab(page, llm.get_by_label("API key", exact=True), "sk-typed-then-tab")
    _type_and_tab(page, llm.get_by_label("Model name", exact=True), "qwen2.5:7b")
    llm.get_by_role("button", name="Save", exact=True).click()
    d.see("Saved LLM connection")
    d.idle()
    saved = _settings_get(app[1], "llm")
    assert saved["model"] == "qwen2.5:7b"
    assert saved["api_key"] == "********", "the typed key was not saved"  # masked: a key is stored
    d.expect(_section(page, "LLM connection").get_by_label("API key", exact=True)).to_have_value("********")
    d.shot("settings-llm-saved")


def test_a_save_keeps_the_tab_the_admin_is_on(settings_page):
    d, page = settings_page, settings_page.page
    d.click("Documents & index", role="tab")
    chunking = _section(page, "Chunking")
    size = chunking.get_by_label("Chunk size", exact=True)
    size.fill("640")
    size.press("Tab")
    chunking.get_by_role("button", name="Save", exact=True).click()
    d.see("Saved Chunking")
    d.idle()
    d.expect(page.get_by_role("tab", name="Documents & index", exact=True)).to_have_attribute("aria-selected", "true")
    d.expect(_section(page, "Chunking").get_by_label("Chunk size", exact=True)).to_have_value("640")
    d.shot("settings-save-keeps-tab")


def test_a_typed_drive_client_secret_is_saved_by_one_click(app, settings_page):
    d, page = settings_page, settings_page.page
    d.click("Google Drive", role="tab")
    d.see("Missing in Documents Settings")
    panel = page.get_by_role("tabpanel").filter(visible=True)
    _type_and_tab(page, panel.get_by_label("OAuth client secret", exact=True), "drive-secret-typed")
    panel.get_by_role("button", name="Save", exact=True).click()
    d.see("Saved Google Drive")
    d.idle()
    assert _settings_get(app[1], "gdrive")["client_secret"] == "********"
    missing = page.get_by_text("Missing in Documents Settings").first.inner_text()
    assert "secret" not in missing, missing
    d.expect(page.get_by_role("tab", name="Google Drive", exact=True)).to_have_attribute("aria-selected", "true")
    d.shot("settings-drive-secret-saved")


def _shown(page, label: str):
    """A select box's shown choice (the value of its combobox)."""
    return page.get_by_role("combobox", name=label, exact=True).first


def test_select_boxes_show_the_new_language_at_once(settings_page):
    """Issue 36: right after a switch to Chinese, two select boxes kept "OpenAI-compatible API" and
    "Answer from general knowledge, marked as such" until the page was left."""
    d, page = settings_page, settings_page.page
    d.expect(_shown(page, "When nothing relevant is found (normal mode)")).to_have_value(
        "Answer from general knowledge, marked as such")
    page.get_by_test_id("stSidebar").get_by_role("combobox", name="Language").click()
    page.get_by_role("option", name="中文").click()
    d.see("大模型连接")
    d.idle()
    try:
        d.expect(_shown(page, "大模型服务")).to_have_value("离线摘录式回答（无需模型）")
        d.expect(_shown(page, "未找到相关内容时（普通模式）")).to_have_value("用通用知识回答，并注明来源")
        d.shot("settings-chinese-at-once")
    finally:  # the module's other tests read English
        page.get_by_test_id("stSidebar").get_by_role("combobox", name="语言").click()
        page.get_by_role("option", name="English").click()
        d.see("LLM connection")
