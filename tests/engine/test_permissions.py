"""Permissions are enforced by the engine: hiding a button is not security."""

from __future__ import annotations

import pytest

from core.errors import NotFound, PermissionDenied
from core.accounts.users import actor_of
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md


@pytest.fixture
def people(engine):
    admin = actor_of(engine.sign_up("alice", "correct horse"))
    bob = actor_of(engine.sign_up("bob", "battery staple"))
    carol = actor_of(engine.sign_up("carol", "carol-password"))
    return admin, bob, carol


def test_first_account_is_admin_and_others_are_users(engine, people):
    admin, bob, carol = people
    assert admin.is_admin and not bob.is_admin and not carol.is_admin
    with pytest.raises(PermissionDenied):
        engine.sign_in("bob", "wrong password")
    assert engine.sign_in("bob", "battery staple").id == bob.user_id


def test_private_kb_is_invisible_to_others(engine, people):
    admin, bob, carol = people
    engine.create_kb(bob, "bob-private")
    [res] = engine.ingest(bob, "bob-private", [md("p.md", POLICY_MD)])
    assert [k.name for k in engine.list_kbs(carol)] == []
    with pytest.raises(NotFound):
        engine.get_kb(carol, "bob-private")
    with pytest.raises(NotFound):
        engine.search(carol, "住宿费", ["bob-private"])
    assert engine.search(carol, "住宿费", min_score=0).hits == []  # "all my kbs" excludes it
    with pytest.raises(NotFound):
        engine.file_chunks(carol, res.file_id)
    [deleted] = engine.delete_files(carol, [res.file_id])
    assert deleted.status == "failed" and "not found" in deleted.error
    assert engine.get_file(bob, res.file_id).status == "indexed"
    assert engine.search(admin, "住宿费", ["bob-private"], min_score=0).hits  # admins see all


def test_shared_kb_is_readable_but_not_writable_by_named_users(engine, people):
    admin, bob, carol = people
    engine.create_kb(bob, "team")
    [res] = engine.ingest(bob, "team", [md("h.md", HANDBOOK_MD)])
    engine.share_kb(bob, "team", ["carol"])
    assert engine.get_kb(carol, "team").visibility == "shared"
    assert engine.search(carol, "remote work days", ["team"], min_score=0).hits
    with pytest.raises(PermissionDenied):
        engine.ingest(carol, "team", [md("x.md", POLICY_MD)])
    with pytest.raises(PermissionDenied):
        engine.delete_kb(carol, "team")
    [deleted] = engine.delete_files(carol, [res.file_id])
    assert deleted.status == "failed" and "owner" in deleted.error
    with pytest.raises(PermissionDenied):
        engine.share_kb(carol, "team", ["carol", "alice"])


def test_public_kb_is_readable_by_everyone(engine, people):
    admin, bob, carol = people
    engine.create_kb(admin, "company", visibility="public")
    engine.ingest(admin, "company", [md("h.md", HANDBOOK_MD)])
    assert [k.name for k in engine.list_kbs(carol)] == ["company"]
    assert engine.search(carol, "laptop", ["company"], min_score=0).hits


def test_only_admins_change_settings_or_run_the_doctor(engine, people):
    admin, bob, _ = people
    with pytest.raises(PermissionDenied):
        engine.save_settings(bob, {"strict": {"rag_strict_mode": True}})
    with pytest.raises(PermissionDenied):
        engine.doctor(bob)
    engine.save_settings(admin, {"strict": {"rag_strict_mode": True}})
    assert engine.settings().strict.rag_strict_mode is True
