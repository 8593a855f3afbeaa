"""Every user's chats are read by the data folder's owner alone (the CLI, SYSTEM_ACTOR): chats stay
private to their owner, a dashboard admin included, and a plain user is refused before that."""

from __future__ import annotations

import pytest

from core.accounts.users import actor_of
from core.errors import NotFound, PermissionDenied
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import engine  # noqa: F401 (fixture)


def test_only_the_local_operator_reads_another_users_chats(engine):
    admin = actor_of(engine.sign_up("ada", "correct horse battery"))  # the first account: an admin
    bob = actor_of(engine.sign_up("bob", "correct horse battery"))
    assert admin.is_admin and not bob.is_admin
    chat = engine.create_chat(bob, "bob's own")
    for reader in (admin, bob):
        for call in (lambda: engine.all_chats(reader), lambda: engine.any_chat(reader, chat.id),
                     lambda: engine.any_chat_markdown(reader, chat.id)):
            with pytest.raises(PermissionDenied):
                call()
    assert [(r.owner, r.id) for r in engine.all_chats(SYSTEM_ACTOR)] == [("bob", chat.id)]
    assert engine.all_chats(SYSTEM_ACTOR, user="ada") == []
    assert engine.any_chat(SYSTEM_ACTOR, chat.id, user="BOB").owner == "bob"
    with pytest.raises(NotFound):
        engine.any_chat(SYSTEM_ACTOR, chat.id, user="ada")  # not among ada's
    assert engine.any_chat_markdown(SYSTEM_ACTOR, chat.id).startswith("# bob's own\n\n*bob*\n")
