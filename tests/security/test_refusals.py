"""Threat: a refusal tells a plain user about another user's objects. Feedback on another user's
answer id said ``chat '<their chat id>' not found``: the caller gave an answer id and learnt the
id of the chat it belongs to.

Every public Engine method is called as "mallory" against the victim's objects, the same walk
as test_engine_surface.py; every refusal's message may repeat what mallory sent, but never names
another of the victim's objects (ids of the knowledge base, file, chat, job, answer and user)."""

from __future__ import annotations

import json

import pytest

from core.errors import CoreError, NotFound
from tests.security.test_engine_surface import _calls, _public_methods, world  # noqa: F401 (world: fixture)


def _victim_ids(engine, victim, ids: dict) -> dict[str, str]:
    return {**{k: v for k, v in ids.items() if k != "source"}, "user": victim.user_id}


def test_no_refusal_names_an_object_the_caller_did_not_name(world):
    engine, victim, mallory, ids = world
    secret_ids = _victim_ids(engine, victim, ids)
    refusals = 0
    for name, sig in sorted(_public_methods().items()):
        if "actor" not in sig.parameters:
            continue
        for kwargs in _calls(name, sig, ids):
            try:
                getattr(engine, name)(mallory, **kwargs)
            except CoreError as exc:
                refusals += 1
                sent = json.dumps(kwargs, default=repr)
                leaked = {k: v for k, v in secret_ids.items() if v in exc.message and v not in sent}
                assert not leaked, f"Engine.{name}({sorted(kwargs)}) refused with {exc.message!r}: names {leaked}"
    assert refusals >= 20


def test_feedback_on_another_users_answer_names_only_the_answer(world):
    engine, victim, mallory, ids = world
    with pytest.raises(NotFound) as refused:
        engine.set_feedback(mallory, ids["message"], 1)
    assert refused.value.message == f"answer '{ids['message']}' not found"
    assert engine.feedback_of(victim, [ids["message"]]) == {}
