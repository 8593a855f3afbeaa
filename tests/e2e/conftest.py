"""A served dashboard (``streamlit run``) on a free port with a temp data folder, and a
headless Debian chromium driven by playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=2).text.strip() == "ok":
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)  # between health polls only; the test itself waits on page state
    raise RuntimeError(f"{url} not healthy after {timeout}s:\n{log.read_text()[-3000:]}")


# Resolves once the page has stopped scrolling: the same scroll positions over two frames. A scroll's
# event reaches the page on the frame after the scroll itself.
SCROLL_SETTLED = """() => new Promise(resolve => {
  const scrollers = () => [document.scrollingElement,
                           ...document.querySelectorAll('[data-testid=stMain], [data-testid=stSidebarContent]')];
  const positions = () => scrollers().map(e => `${e.scrollTop},${e.scrollLeft}`).join(';');
  let last = positions(), still = 0;
  const frame = () => {
    const now = positions();
    still = now === last ? still + 1 : 0;
    last = now;
    if (still >= 2) resolve(); else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})"""


def pick(page, box, option: str) -> None:
    """Choose ``option`` in the select box ``box`` (its combobox) as a person does: scroll to it,
    then click it once and click the option. Streamlit's select list closes when a box around it
    scrolls; playwright's click scrolls a box below the fold into view and presses at once, so the
    scroll's event arrives after the list opened and shuts it. Waiting until the page has stopped
    scrolling is waiting for a state, not clicking again."""
    box.scroll_into_view_if_needed()
    page.evaluate(SCROLL_SETTLED)
    box.click()
    page.get_by_role("option", name=option).first.click()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory, request) -> Path:
    folder = Path(os.environ.get("RAGDESK_E2E_ARTIFACTS") or tmp_path_factory.mktemp("e2e-screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    # through the terminal reporter: a plain print is swallowed by pytest's output capture
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"e2e screenshots: {folder}")
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_app(tmp_path_factory.mktemp("e2e-data"), {})


FAST_ENV = {"RAGDESK_EMBEDDING__PROVIDER": "local", "RAGDESK_EMBEDDING__MODEL": "hash-64",
            "RAGDESK_RETRIEVAL__RAG_MIN_SIMILARITY": "0.05"}


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory):
    """The same app over the hash test embedder (set in the environment, so Settings shows it
    locked): page checks that are about the pages, not about retrieval quality, run in seconds."""
    yield from serve_app(tmp_path_factory.mktemp("e2e-fast-data"), FAST_ENV)


@pytest.fixture
def fresh_fast_server(tmp_path_factory):
    """``fast_server`` for one test alone: it starts with no account and no knowledge base."""
    yield from serve_app(tmp_path_factory.mktemp("e2e-fresh-data"), FAST_ENV)


def serve_app(data: Path, extra_env: dict[str, str], port: int | None = None):
    """``streamlit run dashboard/app.py`` on ``port`` (a free one by default) with its own data
    folder; yields the app's URL once it is healthy, and stops it afterwards."""
    port = port or _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY")}
    env.update(RAGDESK_DATA_DIR=str(data), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **extra_env)
    log = data.parent / f"{data.name}-streamlit.log"  # beside the data folder: ragdesk takes only an empty one
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", "--server.port", str(port),
             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        print(f"\nserver log: {log}")


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package (test extra)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()
