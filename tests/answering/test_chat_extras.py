"""Chat rename / Markdown export / feedback, a file's original and retry, and where an answer
came from (the badge) — against the real engine."""

from __future__ import annotations

import pytest

from core.answering.provenance import answer_sources
from core.answering.types import Answer, Citation
from core.errors import InvalidInput, NotFound, PermissionDenied
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR, Actor


def _user(engine, name: str) -> Actor:
    return engine.actor_for(engine.sign_up(name, "correct horse 1").id)


def test_rename_export_and_feedback_are_the_owners(engine):
    alice, bob = _user(engine, "alice"), _user(engine, "bob")  # alice, the first account, is an admin
    engine.save_settings(SYSTEM_ACTOR, {"retrieval": {"rag_min_similarity": 0.0}})  # hash-64 test vectors
    answer = engine.ask(alice, "How many days can I work remotely?", kbs=["policy"])
    assert answer.chat_id and answer.message_id
    engine.rename_chat(alice, answer.chat_id, "Remote work")
    assert [c.title for c in engine.list_chats(alice)] == ["Remote work"]
    with pytest.raises(InvalidInput):
        engine.rename_chat(alice, answer.chat_id, "  ")
    with pytest.raises(NotFound):
        engine.rename_chat(bob, answer.chat_id, "mine now")
    md = engine.export_chat_markdown(alice, answer.chat_id)
    assert md.startswith("# Remote work\n") and "## How many days can I work remotely?" in md
    assert answer.text.splitlines()[0] in md  # the answer with its line breaks
    assert "- [1] handbook.md" in md or "- [1] travel.md" in md
    engine.set_feedback(alice, answer.message_id, -1)
    engine.set_feedback(alice, answer.message_id, 1)  # a new vote replaces the old one
    assert engine.feedback_of(alice, [answer.message_id]) == {answer.message_id: 1}
    with pytest.raises(NotFound):
        engine.set_feedback(bob, answer.message_id, 1)
    with pytest.raises(PermissionDenied):
        engine.list_feedback(bob)
    items = engine.list_feedback(SYSTEM_ACTOR)
    assert [(i.user, i.rating, i.question) for i in items] == [("alice", 1, "How many days can I work remotely?")]
    engine.set_feedback(alice, answer.message_id, 0)
    assert engine.list_feedback(SYSTEM_ACTOR) == []


def test_original_download_and_retry_of_a_failed_file(engine):
    broken = b"%PDF-1.4\n1 0 obj garbage"
    [result] = engine.ingest(SYSTEM_ACTOR, "policy", [Upload("broken.pdf", broken)])
    assert result.status == "failed"
    assert engine.file_original(SYSTEM_ACTOR, result.file_id) == ("broken.pdf", broken)
    good = engine.list_files(SYSTEM_ACTOR, "policy", status="indexed")[0]
    with pytest.raises(InvalidInput, match="only a failed or cancelled file"):
        engine.submit_retry(SYSTEM_ACTOR, good.id)
    kb_id, future = engine.submit_retry(SYSTEM_ACTOR, result.file_id)
    [again] = future.result(timeout=60)
    assert again.status == "failed" and kb_id == engine.get_kb(SYSTEM_ACTOR, "policy").id
    assert [f.name for f in engine.list_files(SYSTEM_ACTOR, "policy", status="failed")] == ["broken.pdf"]  # one row
    _user(engine, "first")  # the first account is an admin
    stranger = _user(engine, "carol")
    with pytest.raises(NotFound):
        engine.file_original(stranger, good.id)  # a private knowledge base's file


def _cite(kb_id="", source="a.md", origin=None):
    # the origin answering gives such a passage (kb_id: a knowledge base; a URL: a fetched page)
    origin = origin or ("kb" if kb_id else "url" if source.startswith("http") else "attachment")
    return Citation(n=1, chunk_id="c", file_id="f", source_name=source, location="", heading_path=[], text="t",
                    score=0.5, kb_id=kb_id, origin=origin)


def test_answer_sources_tell_where_an_answer_came_from():
    base = dict(question="q", text="x", mode="normal")
    assert answer_sources(Answer(**base, hit=True, llm_called=False, citations=[_cite("kb1")])) == ["knowledge_base"]
    assert answer_sources(Answer(**base, hit=True, llm_called=True, citations=[_cite("")])) == ["attachment"]
    assert answer_sources(Answer(**base, hit=True, llm_called=True, citations=[_cite("", "https://x.org/a")])) == ["web"]
    assert answer_sources(Answer(**base, hit=False, llm_called=True, from_kb=False)) == ["general"]
    assert answer_sources(Answer(**base, hit=False, llm_called=False, from_kb=False)) == ["none"]
    mixed = Answer(**base, hit=True, llm_called=True, citations=[_cite("kb1"), _cite("")])
    assert answer_sources(mixed) == ["knowledge_base", "attachment"]
    declared = Answer(**base, hit=True, llm_called=True)
    declared.sources = ["chat_attachment"]  # a newer engine's own field wins
    assert answer_sources(declared) == ["attachment"]
    # citations stored before they carried an origin: told apart by kb id and source name
    legacy = Answer(**base, hit=True, llm_called=True, citations=[{"kb_id": "", "source_name": "a.md"},
                                                                  {"kb_id": "", "source_name": "https://x.org/a"}])
    assert answer_sources(legacy) == ["attachment", "web"]
