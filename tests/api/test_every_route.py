"""The security walk: EVERY registered operation, called over HTTP as another user (bob) on alice's
private knowledge base, files, chat and job, and once with no token at all.

The requests are derived from the registry (path, method, input model, example), so a new route
is walked without editing this file. An operation that names one of alice's things must answer
403 or 404; one that names none must answer without any of alice's names, ids or facts in it."""

from __future__ import annotations

import pytest

from core.api.registry import operations
from tests.api.conftest import FACT_EN, FACT_ZH, PRIVATE_KB, client

# Body / query fields that point at alice's things when an operation's input has them.
ALICE_FIELDS = {"kbs": [PRIVATE_KB], "model": f"ragdesk:{PRIVATE_KB}"}


@pytest.fixture
def alice_things(world):
    engine, alice = world.engine, world.alice
    chat = engine.create_chat(alice, "alice's secret chat")
    answer = engine.ask(alice, "How many days per week may employees work remotely?", chat_id=chat.id)
    assert FACT_EN in answer.text
    job_id = engine.jobs(alice)[0].id
    assistant = engine.create_assistant(alice, "alice-secret-assistant", [PRIVATE_KB])  # assistants (issue 35)
    return {"kb": PRIVATE_KB, "file_id": world.file_ids[0], "chat_id": chat.id, "job_id": job_id,
            "assistant": assistant.id}


def _request(op, path_values: dict) -> dict:
    # a path field that names none of alice's things (a chunk's index) takes the route's example
    path = op.path.format(**{f: path_values[f] if f in path_values else op.example[f] for f in op.path_fields})
    fields = {k: v for k, v in op.example.items() if k not in op.path_fields}
    alices = {**ALICE_FIELDS, "job_ids": [path_values["job_id"]]}
    fields.update({k: v for k, v in alices.items() if k in op.input.model_fields and k not in op.path_fields})
    if op.body == "none":
        return {"method": op.method, "url": path, "params": {k: v for k, v in fields.items() if k in op.query_fields}}
    if op.body == "multipart":
        return {"method": op.method, "url": path, "files": [("files", ("planted.md", b"# planted\n\nbob was here\n"))]}
    return {"method": op.method, "url": path, "json": fields}


def _names_alice(op) -> bool:
    return bool(op.path_fields) or any(k in op.input.model_fields for k in (*ALICE_FIELDS, "job_ids"))


def test_every_route_as_another_user_is_refused_or_shows_nothing_of_alices(world, api, alice_things):
    secrets = [PRIVATE_KB, world.kb_id, *world.file_ids, alice_things["chat_id"], alice_things["job_id"],
               FACT_EN, FACT_ZH, "handbook.md", "travel-zh.md", "alice's secret chat",
               alice_things["assistant"], "alice-secret-assistant"]
    walked = []
    with client(api, world.bob_token) as bob:
        for op in operations().values():
            request = _request(op, alice_things)
            reply = bob.request(**request)
            walked.append(op.name)
            if _names_alice(op):
                assert reply.status_code in (403, 404), (op.name, reply.status_code, reply.text)
                assert reply.json()["error"]["code"] in ("not_found", "permission_denied"), op.name
            else:
                assert reply.status_code < 300, (op.name, reply.status_code, reply.text)
            # a "not found" may repeat what the caller sent; nothing else of alice's may appear
            leaked = [s for s in secrets if s in reply.text and s not in str(request)]
            assert not leaked, (op.name, leaked)
    assert sorted(walked) == sorted(operations())
    # nothing of alice's was changed by the walk
    engine, alice = world.engine, world.alice
    assert [kb.name for kb in engine.list_kbs(alice)] == [PRIVATE_KB]
    assert {f.name for f in engine.list_files(alice, PRIVATE_KB)} == {"handbook.md", "travel-zh.md"}
    assert len(engine.chat_messages(alice, alice_things["chat_id"])) == 2
    assert engine.jobs(alice, ids=[alice_things["job_id"]])[0].cancel_requested is False


def test_every_route_without_a_token_is_401(world, api, alice_things):
    with client(api, None) as anonymous:
        for op in operations().values():
            reply = anonymous.request(**_request(op, alice_things))
            assert reply.status_code == 401, (op.name, reply.status_code)
            assert reply.json()["error"]["code"] == "not_authenticated"
