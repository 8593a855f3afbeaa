"""An assistant its caller may use but whose knowledge bases they may not read (or none of which, among
those they may read, has its filter's field): the scope is empty — never widened to every knowledge base
the caller may read, and no error either. As the product treats an empty scope elsewhere: strict mode
gives the assistant's refusal text with no request to the model, normal mode answers without
knowledge-base context; both say why in a notice. On SQLite and PostgreSQL (the access checks read the
assistant's and the knowledge bases' rows), embedded Qdrant, the real OpenAI client against a local
fake model server."""

from __future__ import annotations

from tests.assistants.conftest import fake_model
from tests.fakes.llm_server import fake_llm_server, text

CODENAME = "What is the launch codename for the spring release?"  # only alice's private notes say it
REFUSAL = "The launch desk answers from the launch notes only."
MODEL_SAYS = "I cannot see any launch notes."
NO_KB = "none of this assistant's knowledge bases is readable by you, so no knowledge base was searched"


def test_no_readable_kb_strict_gives_the_refusal_without_a_model_call_normal_answers_without_context(world):
    e = world.engine
    with fake_llm_server([text(MODEL_SAYS)] * 5) as llm:
        e.save_settings(world.admin, {**fake_model(llm), "answering": {"low_similarity_action": "flag_for_human"}})
        e.create_assistant(world.alice, "launch-desk", ["alice-notes"], mode="strict", visibility="public",
                           refusal_text=REFUSAL)
        e.create_assistant(world.alice, "launch-chat", ["alice-notes"], mode="normal", visibility="public")
        strict = e.ask_assistant(world.bob, "launch-desk", CODENAME, temporary=True)
        assert strict.mode == "strict" and strict.text == REFUSAL
        assert not strict.hit and not strict.llm_called and strict.citations == [] and strict.retrieved == []
        assert any(NO_KB in n for n in strict.notices), strict.notices
        assert llm.chat_count == 0  # the hard guarantee: no request reached the model
        normal = e.ask_assistant(world.bob, "launch-chat", CODENAME, temporary=True)
        assert normal.mode == "normal" and normal.llm_called and MODEL_SAYS in normal.text
        assert not normal.from_kb and not normal.flagged and normal.citations == [] and normal.retrieved == []
        assert any(NO_KB in n for n in normal.notices), normal.notices
        assert llm.chat_count == 1 and "Blue Heron" not in str(llm.chat_bodies())  # no passage of the notes
        # stored chats too (the chat page): the same refusal, and nothing widened
        stored = e.ask_assistant(world.bob, "launch-desk", CODENAME)
        assert stored.text == REFUSAL and not stored.llm_called and llm.chat_count == 1
        [kept] = [m for m in e.chat_messages(world.bob, stored.chat_id) if m.role == "assistant"]
        assert kept.content == REFUSAL and any(NO_KB in n for n in kept.notices)  # stored with its notice
        # alice, who may read her notes, is answered from them by the same assistant
        own = e.ask_assistant(world.alice, "launch-desk", CODENAME, temporary=True)
        assert own.hit and {c.source_name for c in own.citations} == {"notes.md"}


def test_no_readable_kb_with_the_filters_field_is_an_empty_scope_too(world):
    e = world.engine
    e.define_metadata_field(world.alice, "alice-notes", "project", "text")
    [notes] = e.list_files(world.alice, "alice-notes")
    e.set_file_metadata(world.alice, notes.id, {"project": "heron"})
    with fake_llm_server([text(MODEL_SAYS)] * 3) as llm:
        e.save_settings(world.admin, fake_model(llm))
        # bob may read the engineering guide, which has no 'project' field; the notes are alice's alone
        e.create_assistant(world.alice, "heron", ["alice-notes", "engineering"], mode="strict", visibility="public",
                           refusal_text=REFUSAL, where={"project": "heron"})
        refused = e.ask_assistant(world.bob, "heron", "On which days do production deployments happen?",
                                  temporary=True)
        assert refused.text == REFUSAL and not refused.llm_called and refused.retrieved == []
        assert any("has the field of its filter (project)" in n for n in refused.notices), refused.notices
        assert any("1 of this assistant's knowledge bases is not readable by you" in n for n in refused.notices)
        assert llm.chat_count == 0
        own = e.ask_assistant(world.alice, "heron", CODENAME, temporary=True)
        assert own.hit and {c.source_name for c in own.citations} == {"notes.md"}
