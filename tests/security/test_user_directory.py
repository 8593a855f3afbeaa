"""Threat: a plain user learns every account — names, roles and e-mails — through the engine's
``list_users`` (it returned names and roles of every enabled account to anyone). Now listing
accounts is for admins; sharing a knowledge base gets names alone, and only for someone who may
share that knowledge base (its owner or an admin)."""

from __future__ import annotations

import pytest

from core.errors import NotFound, PermissionDenied
from tests.dashboard.conftest import button, engine, goto, new_app, sign_up  # noqa: F401 (engine: fixture)


@pytest.fixture
def people(engine):
    admin = engine.actor_for(engine.sign_up("root", "correct horse 1").id)
    alice = engine.actor_for(engine.sign_up("alice", "correct horse 1").id)
    bob = engine.sign_up("bob", "correct horse 1")
    engine.sign_up("carol", "correct horse 1")
    engine.sso_sign_in("dave@example.com", "dave")
    engine.set_user_disabled(admin, "carol", True)
    return engine, admin, alice, engine.actor_for(bob.id)


def test_a_plain_user_cannot_list_the_accounts(people):
    engine, admin, alice, _ = people
    with pytest.raises(PermissionDenied, match="only an admin may list the accounts"):
        engine.list_users(alice)
    everyone = {u.name: u for u in engine.list_users(admin)}
    assert set(everyone) >= {"root", "alice", "bob", "carol"} and any(u.email for u in everyone.values())


def test_sharing_gets_names_only_and_only_for_who_may_share(people):
    engine, admin, alice, bob = people
    kb = engine.create_kb(alice, "alice-notes")
    candidates = engine.share_candidates(alice, kb.id)
    assert all(isinstance(n, str) for n in candidates)  # names, nothing else about the accounts
    assert "alice" not in candidates and "carol" not in candidates and {"root", "bob"} <= set(candidates)
    assert engine.share_candidates(admin, kb.id) == candidates
    with pytest.raises(NotFound):  # bob may not see her private knowledge base, let alone its candidates
        engine.share_candidates(bob, kb.id)
    engine.share_kb(alice, kb.id, ["bob"])
    with pytest.raises(PermissionDenied):  # shared with him to read: still not his to share
        engine.share_candidates(bob, kb.id)


def test_a_plain_owner_still_shares_from_the_knowledge_bases_page(engine):
    engine.sign_up("root", "correct horse 1")
    engine.sign_up("bob", "correct horse 1")
    at = goto(sign_up(new_app(), "alice"), "kbs")  # the second account: a plain user
    at.text_input(key="new_kb_name").input("alice-notes")
    button(at, "Create").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    kb = engine.list_kbs(engine.actor_for(at.session_state["user_id"]))[0]
    chooser = at.multiselect(key=f"share_{kb.id}_users")
    assert sorted(chooser.options) == ["bob", "root"]
    chooser.set_value(["bob"])
    button(at, "Update sharing").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert engine.shared_with(engine.actor_for(at.session_state["user_id"]), kb.id) == ["bob"]
