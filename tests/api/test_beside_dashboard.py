"""The dashboard and the HTTP API at once on the embedded default (issue 19): with RAGDESK_API_PORT the
dashboard's own process serves the API over the engine it holds, so a user runs both with one
command; tokens are made with the CLI while the dashboard runs (it needs only the database)."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest

from tests.e2e.conftest import ROOT, _free_port, serve_app

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _cli(data, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run([sys.executable, "-m", "core", "--data-dir", str(data), *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_dashboard_serves_the_api_beside_itself(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    api_port = _free_port()
    env = {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64", "RAGDESK_API_PORT": str(api_port)}
    for app_url in serve_app(data, env):
        assert httpx.get(app_url + "/_stcore/health", timeout=10).status_code == 200
        # the engine (and with it the API) opens on the first session; a page load starts one
        api = f"http://127.0.0.1:{api_port}"
        _cli(data, "users", "create", "alice", "--role", "admin", stdin="correct horse 1\n")
        token = json.loads(_cli(data, "--json", "tokens", "create", "--user", "alice"))["token"]
        _open_first_session(app_url)
        models = httpx.get(api + "/v1/models", headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert models.status_code == 200 and "ragdesk" in [m["id"] for m in models.json()["data"]]
        created = httpx.post(api + "/api/v1/kbs", json={"name": "handbook"},
                             headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert created.status_code in (200, 201), created.text
        assert httpx.get(api + "/v1/models", timeout=10).status_code == 401


def _open_first_session(app_url: str) -> None:
    """The dashboard opens its engine when a session first runs the app script (a browser's visit)."""
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium to open a dashboard session")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page()
        page.goto(app_url)
        page.get_by_text("Sign in").first.wait_for(timeout=60_000)
        browser.close()
