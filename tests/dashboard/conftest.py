"""AppTest fixtures: the real app (dashboard/app.py) over a real engine on a temp data folder.

The engine is cached per process (st.cache_resource); each test clears that cache, which
closes the previous engine (only one engine may hold a store folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.types import SYSTEM_ACTOR
from dashboard.runtime import get_engine

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
PAGE = {
    "chat": "../pages/chat.py",
    "kbs": "../pages/knowledge_bases.py",
    "files": "../pages/file_manager.py",
    "settings": "../pages/documents_settings.py",
    "ab": "../pages/ab_compare.py",
    "assistants": "../pages/assistants.py",
}


@pytest.fixture
def engine(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGDESK_DATA_DIR", str(tmp_path / "data"))
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    st.cache_resource.clear()
    eng = get_engine()
    eng.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"}})
    yield eng
    st.cache_resource.clear()  # closes the engine (on_release)


def new_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    return at


def button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r}; buttons: {[b.label for b in at.button]}"
    return matches[0]


def sign_up(at: AppTest, name: str, password: str = "correct horse 1") -> AppTest:
    at.text_input(key="signup_name").input(name)
    at.text_input(key="signup_password").input(password)
    at.text_input(key="signup_password2").input(password)
    button(at, "Create account").click()
    at.run()
    assert not at.exception, at.exception
    return at


def sign_in(at: AppTest, name: str, password: str = "correct horse 1") -> AppTest:
    at.text_input(key="signin_name").input(name)
    at.text_input(key="signin_password").input(password)
    button(at, "Sign in").click()
    at.run()
    return at


def goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(PAGE[page])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    """Everything a user reads on the page, for content assertions."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.error]
    parts += [w.value for w in at.warning] + [i.value for i in at.info] + [s.value for s in at.success]
    parts += [x.value for x in at.title] + [x.value for x in at.subheader] + [x.value for x in at.header]
    return "\n".join(str(p) for p in parts)
