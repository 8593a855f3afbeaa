"""Assistants on the real engine (embedded Qdrant, SQLite and PostgreSQL): the preset's knowledge bases,
mode, thresholds, top-k, prompt and refusal text are applied; strict assistants keep every strict
guarantee (no hit: the refusal text, no request reaches the model); access is a knowledge base's and
an assistant never widens what its caller may read; the global forced-strict policy wins."""

from __future__ import annotations

import pytest

from core.errors import AlreadyExists, InvalidInput, NotFound, PermissionDenied
from tests.assistants.conftest import REFUSAL_ZH, fake_model
from tests.fakes.llm_server import fake_llm_server, text

LEAVE_ZH = "员工每年有多少天带薪年假？"
DEPLOY = "On which days do production deployments happen?"
MODEL_SAYS = "from the model"


def _sources(answer) -> set[str]:
    return {c.source_name for c in answer.citations}


def test_a_strict_assistant_answers_only_from_its_kbs_with_its_refusal_text(world):
    e = world.engine
    with fake_llm_server([text(MODEL_SAYS)] * 5) as llm:
        e.save_settings(world.admin, fake_model(llm))
        hr = e.create_assistant(world.admin, "人事助手", ["hr"], visibility="public", mode="strict",
                                refusal_text=REFUSAL_ZH)
        assert hr.kbs == ["hr"] and hr.mode == "strict" and hr.refusal_text == REFUSAL_ZH
        leave = e.ask_assistant(world.bob, "人事助手", LEAVE_ZH, temporary=True)
        assert leave.mode == "strict" and leave.hit and _sources(leave) == {"hr.md"}
        assert "十五天" in " ".join(c.text for c in leave.citations)
        calls = llm.chat_count  # strict with a hit: the model writes from the passages
        # the engineering guide answers this, but it is not the assistant's: the refusal text, no model
        outside = e.ask_assistant(world.bob, hr.id, DEPLOY, temporary=True)
        assert not outside.hit and not outside.llm_called and outside.text == REFUSAL_ZH
        assert outside.citations == [] and outside.from_kb is False
        # a #mention of a knowledge base outside the assistant does not reach it either
        mentioned = e.ask_assistant(world.bob, hr.id, f"#engineering {DEPLOY}", temporary=True)
        assert not mentioned.hit and not mentioned.llm_called and "eng.md" not in _sources(mentioned)
        assert llm.chat_count == calls  # no request for the refused questions
        # the same question without the assistant finds it (so the scope, not the index, refused it)
        assert e.ask(world.bob, DEPLOY, mode="strict", temporary=True).hit


def test_thresholds_and_top_k_come_from_the_preset(world):
    e = world.engine
    e.create_assistant(world.admin, "picky", ["hr", "engineering"], mode="strict", strict_min_similarity=1.0)
    assert not e.ask_assistant(world.admin, "picky", DEPLOY, temporary=True).hit  # nothing scores 1.0
    e.update_assistant(world.admin, "picky", strict_min_similarity=0.0, top_k=1)
    one = e.ask_assistant(world.admin, "picky", DEPLOY, temporary=True)
    assert one.hit and len([r for r in one.retrieved if r["passed"]]) <= 1
    e.update_assistant(world.admin, "picky", clear=["top_k"])
    assert e.get_assistant(world.admin, "picky").top_k is None
    wide = e.ask_assistant(world.admin, "picky", DEPLOY, temporary=True)
    assert len([r for r in wide.retrieved if r["passed"]]) > 1


def test_a_normal_assistant_uses_its_prompt_and_calls_the_model(world):
    e = world.engine
    with fake_llm_server([text(MODEL_SAYS)] * 5) as llm:
        e.save_settings(world.admin, fake_model(llm))
        e.create_assistant(world.alice, "eng-helper", ["engineering"], mode="normal", visibility="public",
                           prompt="ENG-HELPER-PROMPT answer from these passages only:\n{{CONTEXT}}\n{{QUERY}}")
        answer = e.ask_assistant(world.bob, "eng-helper", DEPLOY, temporary=True)
        assert answer.mode == "normal" and answer.llm_called and MODEL_SAYS in answer.text
        sent = str(llm.chat_bodies())
        assert "ENG-HELPER-PROMPT" in sent and "Tuesdays" in sent
        # the global prompt is untouched: a plain ask does not use the assistant's
        e.ask(world.bob, DEPLOY, mode="normal", temporary=True)
        assert "ENG-HELPER-PROMPT" not in str(llm.chat_bodies()[-1])


def test_the_global_strict_policy_wins_over_a_normal_assistant_for_plain_users(world):
    e = world.engine
    with fake_llm_server([text(MODEL_SAYS)] * 5) as llm:
        e.save_settings(world.admin, {**fake_model(llm), "strict": {"rag_strict_mode": True}})
        e.create_assistant(world.admin, "open-helper", ["engineering"], mode="normal", visibility="public",
                           refusal_text="Nothing on that in the engineering guide.")
        plain = e.ask_assistant(world.bob, "open-helper", "What is the capital of Peru?", temporary=True)
        assert plain.mode == "strict" and not plain.llm_called and plain.text == "Nothing on that in the engineering guide."
        assert any("strict mode is on" in n for n in plain.notices)
        assert llm.chat_count == 0
        admin = e.ask_assistant(world.admin, "open-helper", DEPLOY, temporary=True)
        assert admin.mode == "normal" and admin.llm_called


def test_a_private_assistant_is_invisible_to_others_shared_and_public_ones_are_not(world):
    e = world.engine
    e.create_assistant(world.alice, "mine", ["hr"])
    assert [a.name for a in e.list_assistants(world.alice)] == ["mine"]
    assert e.list_assistants(world.bob) == []
    for call in (lambda: e.get_assistant(world.bob, "mine"),
                 lambda: e.ask_assistant(world.bob, "mine", LEAVE_ZH, temporary=True)):
        with pytest.raises(NotFound):
            call()
    assert [a.name for a in e.list_assistants(world.admin)] == ["mine"]  # admins see every assistant
    shared = e.update_assistant(world.alice, "mine", shared_with=["bob"])
    assert shared.visibility == "shared" and shared.shared_with == ["bob"]
    seen = e.get_assistant(world.bob, "mine")
    assert seen.shared_with == [] and not seen.may_change  # the share list is the owner's to see
    assert e.ask_assistant(world.bob, "mine", LEAVE_ZH, temporary=True).hit
    with pytest.raises(PermissionDenied):
        e.update_assistant(world.bob, "mine", mode="normal")
    with pytest.raises(PermissionDenied):
        e.delete_assistant(world.bob, "mine")
    e.update_assistant(world.alice, "mine", shared_with=[], visibility="private")
    assert e.list_assistants(world.bob) == []
    e.update_assistant(world.alice, "mine", visibility="public")
    assert [a.name for a in e.list_assistants(world.bob)] == ["mine"]
    e.delete_assistant(world.alice, "mine")
    assert e.list_assistants(world.alice) == [] and e.list_assistants(world.bob) == []


def test_an_assistant_never_widens_what_its_caller_may_read(world):
    e = world.engine
    # alice's public assistant over her private notes and the public engineering guide
    a = e.create_assistant(world.alice, "launch", ["alice-notes", "engineering"], mode="strict", visibility="public")
    assert a.kbs == ["alice-notes", "engineering"] and a.hidden_kbs == 0
    codename = "What is the launch codename for the spring release?"
    assert "Blue Heron" in e.ask_assistant(world.alice, "launch", codename, temporary=True).text
    seen = e.get_assistant(world.bob, "launch")
    assert seen.kbs == ["engineering"] and seen.hidden_kbs == 1  # the private one is not named
    # bob: the private notes are left out (and said so), never searched
    answer = e.ask_assistant(world.bob, "launch", codename, temporary=True)
    assert "Blue Heron" not in answer.text and "notes.md" not in _sources(answer)
    assert all(r["file_id"] not in _note_ids(world) for r in answer.retrieved)
    assert any("1 of this assistant's knowledge bases is not readable by you" in n for n in answer.notices)
    assert e.ask_assistant(world.bob, "launch", DEPLOY, temporary=True).hit
    # an assistant over nothing bob may read searches nothing (strict: the fixed reply, no model call),
    # never widened to every knowledge base (the engineering guide answers DEPLOY): tests/assistants/test_empty_scope.py
    e.create_assistant(world.alice, "notes-only", ["alice-notes"], visibility="public")
    empty = e.ask_assistant(world.bob, "notes-only", DEPLOY, temporary=True)
    assert not empty.hit and not empty.llm_called and empty.retrieved == [] and empty.citations == []
    # and nobody puts a knowledge base they cannot read into an assistant
    with pytest.raises(NotFound):
        e.create_assistant(world.bob, "sneaky", ["alice-notes"])
    with pytest.raises(NotFound):
        e.update_assistant(world.admin, "notes-only", kbs=["no-such-kb"])


def _note_ids(world) -> set[str]:
    return {f.id for f in world.engine.list_files(world.alice, "alice-notes")}


def test_bad_input_is_a_clear_error(sqlite_world):
    e, alice = sqlite_world.engine, sqlite_world.alice
    e.create_assistant(alice, "one", [])
    with pytest.raises(AlreadyExists):
        e.create_assistant(alice, "one", [])
    with pytest.raises(InvalidInput, match="CONTEXT"):
        e.create_assistant(alice, "two", [], prompt="no placeholder here")
    with pytest.raises(InvalidInput, match="'/'"):
        e.create_assistant(alice, "a/b", [])
    with pytest.raises(InvalidInput):
        e.create_assistant(alice, "three", [], mode="lenient")
    with pytest.raises(InvalidInput):
        e.create_assistant(alice, "four", [], top_k=0)
    with pytest.raises(NotFound):
        e.create_assistant(alice, "five", [], shared_with=["nobody-of-that-name"])


def test_an_assistant_without_kbs_reads_what_its_caller_may_read(sqlite_world):
    e = sqlite_world.engine
    e.create_assistant(sqlite_world.alice, "all", [], visibility="public", mode="strict")
    codename = "What is the launch codename for the spring release?"
    assert "Blue Heron" in e.ask_assistant(sqlite_world.alice, "all", codename, temporary=True).text
    assert "Blue Heron" not in e.ask_assistant(sqlite_world.bob, "all", codename, temporary=True).text


def test_the_ab_compare_through_an_assistant_uses_its_preset_and_stays_for_admins(sqlite_world):
    e = sqlite_world.engine
    e.create_assistant(sqlite_world.admin, "hr-desk", ["hr"], visibility="public", refusal_text=REFUSAL_ZH)
    result = e.compare_assistant(sqlite_world.admin, "hr-desk", DEPLOY)
    assert result.strict.text == REFUSAL_ZH and not result.strict.llm_called
    assert "eng.md" not in _sources(result.normal) and "eng.md" not in _sources(result.strict)
    with pytest.raises(PermissionDenied):  # the normal column is for admins (strict.compare_roles)
        e.compare_assistant(sqlite_world.bob, "hr-desk", DEPLOY)


def test_a_plain_users_assistant_cannot_lower_the_strict_bar(sqlite_world):
    e = sqlite_world.engine
    e.save_settings(sqlite_world.admin, {"strict": {"rag_strict_min_similarity": 0.99}})
    e.create_assistant(sqlite_world.alice, "lax", ["engineering"], strict_min_similarity=0.0)
    assert not e.ask_assistant(sqlite_world.alice, "lax", DEPLOY, temporary=True).hit  # the global 0.99 holds
    e.create_assistant(sqlite_world.admin, "admin-lax", ["engineering"], strict_min_similarity=0.0)
    assert e.ask_assistant(sqlite_world.admin, "admin-lax", DEPLOY, temporary=True).hit  # an admin's may
