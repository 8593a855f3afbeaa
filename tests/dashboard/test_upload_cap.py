"""The dashboard server's own upload cap (Streamlit's ``server.maxUploadSize``, which its upload
handler enforces on every file) follows ``parsing.max_upload_mb``: a saved change applies at the
next page run, in this process or saved by another."""

from __future__ import annotations

from streamlit import config

from core.types import SYSTEM_ACTOR
from tests.dashboard.conftest import new_app


def test_the_servers_upload_cap_follows_the_setting(engine):
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_upload_mb": 1}})
    at = new_app()
    assert not at.exception
    assert config.get_option("server.maxUploadSize") == 1
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_upload_mb": 37}})
    at.run()
    assert config.get_option("server.maxUploadSize") == 37
