"""Threat: a plain user opens the Strict A/B page (its URL, or its menu entry) to read normal-mode
answers while an admin has strict mode on. The page says why it is closed and shows no form; the
engine refuses the compare in any case (tests/security/test_strict_policy.py). The menu entry
itself is hidden in a real browser (tests/e2e/test_ab_access.py)."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR
from tests.dashboard.conftest import engine, goto, new_app, sign_up, texts  # noqa: F401 (engine: fixture)


def test_a_plain_user_opening_the_ab_page_is_told_why(engine):
    engine.sign_up("alice", "correct horse 1")  # the first account is the admin
    engine.save_settings(SYSTEM_ACTOR, {"strict": {"rag_strict_mode": True}})
    at = goto(sign_up(new_app(), "bob"), "ab")
    assert "The Strict A/B compare shows normal-mode answers" in texts(at)
    assert not [b for b in at.button if b.label in ("Compare", "Run batch")]
    assert not [a for a in at.text_area if a.key in ("ab_question", "ab_paste")]


def test_a_role_an_admin_named_may_use_the_ab_page(engine):
    engine.sign_up("alice", "correct horse 1")
    engine.save_settings(SYSTEM_ACTOR, {"strict": {"rag_strict_mode": True, "compare_roles": ["admin", "user"]}})
    at = goto(sign_up(new_app(), "bob"), "ab")
    assert "The Strict A/B compare shows normal-mode answers" not in texts(at)
    assert [b for b in at.button if b.label == "Compare"]
