"""The file pickers state the one upload limit and hold to it (issue 36: the knowledge-base and
curated-CSV pickers said "200MB per file" while Largest upload was 100 MB, and with 1 MB a
3.4 MB file was sent whole before it was refused). The browser enforces a picker's
``max_upload_size`` before sending (tests/e2e/test_uploads_browser.py); this checks what each
picker and the server's upload route are given."""

from __future__ import annotations

import pytest
from streamlit import config as st_config

from core.types import SYSTEM_ACTOR
from tests.dashboard.conftest import goto, new_app, sign_up, texts


@pytest.fixture
def restore_server_cap():
    before = st_config.get_option("server.maxUploadSize")
    yield
    st_config.set_option("server.maxUploadSize", before)


def _limits(at) -> dict[str, int]:
    return {u.proto.label: u.proto.max_upload_size_mb for u in at.get("file_uploader")}


@pytest.mark.parametrize("mb, csv_mb", [(100, 20), (1, 1)])
def test_pickers_and_the_server_cap_follow_largest_upload(engine, restore_server_cap, mb, csv_mb):
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_upload_mb": mb}})
    at = sign_up(new_app(), "alice")
    engine.create_kb(engine.actor_for(at.session_state["user_id"]), "handbook")
    at = goto(at, "kbs")
    assert _limits(at) == {"Add files": mb, "Import CSV": csv_mb,
                           "Values from a CSV (file, then one column per field)": csv_mb}  # metadata values
    assert f"Largest file: {mb} MB" in texts(at)
    assert st_config.get_option("server.maxUploadSize") == mb
    goto(at, "ab")
    assert set(_limits(at).values()) == {mb}
