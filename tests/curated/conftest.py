"""An engine (hash embedder) with the answering test knowledge base, and three people."""

from __future__ import annotations

import pytest

from core.accounts.users import actor_of
from tests.answering.conftest import engine, server  # noqa: F401  (the indexed "policy" knowledge base)


@pytest.fixture
def people(engine):  # noqa: F811
    admin = actor_of(engine.sign_up("alice", "correct horse"))
    bob = actor_of(engine.sign_up("bob", "battery staple"))
    carol = actor_of(engine.sign_up("carol", "carol-password"))
    return admin, bob, carol
