"""The API's documentation pages in a real browser reach no other host: every request a page makes
is recorded (and any to another host aborted, so a failing run sends nothing off this machine).
ReDoc's bundled script fetched its logo from cdn.redoc.ly: ReDoc is not served; Swagger UI at
/docs is, complete, from this server alone."""

from __future__ import annotations

import pytest

from tests.api.conftest import api, world  # noqa: F401 (fixtures: a real API server on loopback)
from tests.e2e.conftest import browser  # noqa: F401 (fixture)
from tests.e2e.test_own_server import Recorder

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_the_docs_pages_reach_no_other_host(api, browser):  # noqa: F811
    own = api.url.removeprefix("http://")
    context = browser.new_context()
    recorder = Recorder(context, own)
    page = context.new_page()
    try:
        page.goto(f"{api.url}/docs")
        page.wait_for_selector(".swagger-ui .info .title", timeout=60_000)
        page.get_by_text("/api/v1/kbs", exact=True).first.wait_for(timeout=30_000)  # the schema rendered
        page.wait_for_load_state("networkidle")
        redoc = page.goto(f"{api.url}/redoc")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1500)  # a script loaded late would ask for its images now
        assert recorder.foreign == [], recorder.foreign
        assert redoc.status == 404
        assert recorder.seen == {own}
    finally:
        context.close()
