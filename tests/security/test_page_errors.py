"""Threat: a plain user reads a provider's or the store's own words on a page (host names, URLs,
internals) when an engine call fails outside answering. The page shows them a plain sentence and
an error id; an admin sees the engine's message; the user's own mistakes stay readable."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _page(role: str, kind: str) -> AppTest:
    def script(role: str, kind: str) -> None:
        import streamlit as st

        from core import errors
        from core.types import Actor
        from dashboard.errors import show_error

        st.session_state["error_audience"] = Actor(user_id="u1", role=role, name="bob")
        exc = {"embedding": errors.EmbeddingError("Embedding API at embed.internal:8080 refused the key"),
               "input": errors.InvalidInput("the question is empty")}[kind]
        show_error(exc)

    return AppTest.from_function(script, args=(role, kind)).run()


def test_a_plain_user_sees_a_plain_sentence_and_an_error_id():
    [shown] = _page("user", "embedding").error
    assert "embed.internal" not in shown.value and "error id" in shown.value


def test_an_admin_sees_the_engine_message():
    [shown] = _page("admin", "embedding").error
    assert "embed.internal:8080" in shown.value


def test_a_users_own_mistake_stays_readable():
    [shown] = _page("user", "input").error
    assert shown.value == "the question is empty"
