"""Threat: while an admin has strict mode on, a plain user gets a normal-mode answer anyway —
general knowledge, fetched pages sent to the model — by asking for ``mode="normal"`` (any page,
the CLI hand-off, a future API) or through the Strict A/B compare.

Strict mode is a policy, not a default: with it on, every answer a plain user gets is a strict
one, and the normal column of the compare is for admins (and roles an admin names in
``strict.compare_roles``). A refused override says why. The fake LLM server proves whether the
model was called."""

from __future__ import annotations

import pytest

from core.errors import PermissionDenied
from core.types import SYSTEM_ACTOR
from core.accounts.users import actor_of
from tests.answering.conftest import configure, engine, server, use_openai  # noqa: F401 (fixtures)
from tests.fakes import text

OFF_TOPIC = "What is the capital of France?"  # not in the knowledge base: normal mode would ask the model
IN_SCOPE = "一线城市住宿费每晚不超过多少？"


@pytest.fixture
def people(engine):
    admin = actor_of(engine.sign_up("alice", "correct horse"))  # the first account is the admin
    bob = actor_of(engine.sign_up("bob", "bob-password"))
    return admin, bob


def test_a_plain_user_asking_for_normal_mode_gets_a_strict_answer_and_is_told(engine, server, people):
    _, bob = people
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    answer = engine.ask(bob, OFF_TOPIC, mode="normal", temporary=True)
    assert answer.mode == "strict" and not answer.error
    assert not answer.llm_called and server.request_count == 0  # no general-knowledge answer
    assert any("strict mode is on" in n and "normal" in n for n in answer.notices), answer.notices
    # The same through a saved chat: the stored answer is a strict one too.
    chat = engine.create_chat(bob, "mine")
    saved = engine.ask(bob, OFF_TOPIC, mode="normal", chat_id=chat.id)
    assert saved.mode == "strict" and server.request_count == 0
    assert [m.mode for m in engine.chat_messages(bob, chat.id)] == ["strict", "strict"]


def test_a_plain_user_cannot_compare_and_is_told_why(engine, server, people):
    _, bob = people
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    with pytest.raises(PermissionDenied) as refused:
        engine.compare(bob, OFF_TOPIC)
    assert "admin" in refused.value.message and "compare" in refused.value.message
    with pytest.raises(PermissionDenied):
        engine.compare_batch(bob, [OFF_TOPIC, IN_SCOPE])
    assert not engine.may_compare(bob)
    assert server.request_count == 0
    # Strict mode off: the compare still shows what the admin's simulation panel shows, so it stays theirs.
    configure(engine, strict={"rag_strict_mode": False})
    with pytest.raises(PermissionDenied):
        engine.compare(bob, OFF_TOPIC)


def test_an_admin_may_compare_and_ask_for_normal_mode(engine, server, people):
    admin, _ = people
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    server.add(text("Paris."))
    answer = engine.ask(admin, OFF_TOPIC, mode="normal", temporary=True)
    assert answer.mode == "normal" and answer.llm_called and server.chat_count == 1
    assert not any("strict mode is on" in n for n in answer.notices)
    server.add(text("Paris, again."))
    result = engine.compare(admin, OFF_TOPIC)
    assert (result.normal.mode, result.strict.mode) == ("normal", "strict")
    assert result.normal.llm_called and not result.strict.llm_called
    assert engine.may_compare(admin) and engine.may_compare(SYSTEM_ACTOR)  # the CLI's local admin


def test_an_admin_may_let_a_role_compare(engine, server, people):
    admin, bob = people
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True, "compare_roles": ["admin", "user"]})
    assert engine.may_compare(bob)
    server.add(text("Paris."))
    result = engine.compare(bob, OFF_TOPIC)
    assert result.normal.mode == "normal" and result.normal.llm_called
    assert result.strict.mode == "strict" and not result.strict.llm_called
    server.add(text("Paris."))
    assert engine.ask(bob, OFF_TOPIC, mode="normal", temporary=True).mode == "normal"


def test_a_plain_user_may_ask_for_strict_mode_when_it_is_off(engine, server, people):
    _, bob = people
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": False})
    answer = engine.ask(bob, OFF_TOPIC, mode="strict", temporary=True)
    assert answer.mode == "strict" and not answer.llm_called and server.request_count == 0
    server.add(text("Paris."))
    assert engine.ask(bob, OFF_TOPIC, temporary=True).mode == "normal"  # the setting's mode, no notice


def test_the_cli_runs_as_the_local_admin_so_it_may_compare_with_strict_mode_on(data_dir, tmp_path):
    """``python -m core`` is the data folder's owner (the local admin): the policy lets it compare."""
    from tests.cli.test_cli import as_json, run_cli
    from tests.engine.conftest import POLICY_MD

    doc = tmp_path / "差旅.md"
    doc.write_text(POLICY_MD, encoding="utf-8")
    strict_on = {"RAGDESK_STRICT__RAG_STRICT_MODE": "true"}
    run_cli(data_dir, "kb", "create", "policy", env_extra=strict_on)
    run_cli(data_dir, "ingest", "--kb", "policy", str(doc), env_extra=strict_on)
    default = as_json(run_cli(data_dir, "ask", "--json", IN_SCOPE, env_extra=strict_on))
    asked = as_json(run_cli(data_dir, "ask", "--json", "--mode", "normal", IN_SCOPE, env_extra=strict_on))
    assert default["mode"] == "strict" and asked["mode"] == "normal" and not asked["notices"]
    row = as_json(run_cli(data_dir, "compare", "--json", IN_SCOPE, env_extra=strict_on))
    assert (row["normal"]["mode"], row["strict"]["mode"]) == ("normal", "strict")


def test_the_hand_off_runs_as_the_local_admin_whatever_actor_the_client_names(tmp_path, monkeypatch):
    """The dashboard's hand-off runs CLI commands as the local admin (tests/security/test_handoff.py);
    a plain user named by the client does not make the compare refused or allowed."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.handoff.channel import RemoteEngine
    from core.types import Actor

    for var in ("DATABASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RAGDESK_EMBEDDING__MODEL", "hash-64")
    monkeypatch.setenv("RAGDESK_STRICT__RAG_STRICT_MODE", "true")
    data = tmp_path / "data"
    with Engine(RuntimeConfig.from_env(data), serve_handoff=True):
        remote = RemoteEngine(data)
        plain = Actor(user_id="u-bob", role="user", name="bob")  # not sent: the server ignores it
        result = remote.compare(plain, OFF_TOPIC)
        assert (result.normal.mode, result.strict.mode) == ("normal", "strict")
