"""A citation view is read like the file it shows: another user's private file is refused, and
strict mode answers still open their citations (knowledge-base content, no model call)."""

from __future__ import annotations

import pytest

from core.citations.types import PageView
from core.errors import NotFound
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from core.accounts.users import actor_of
from tests.citations.test_pdf_view import _text_pdf
from tests.engine.conftest import HANDBOOK_MD, md


def test_another_users_private_file_is_refused_and_its_owner_sees_it(engine):
    admin = actor_of(engine.sign_up("alice", "correct horse"))
    bob = actor_of(engine.sign_up("bob", "battery staple"))
    carol = actor_of(engine.sign_up("carol", "carol-password"))
    engine.create_kb(bob, "bob-private")
    [res] = engine.ingest(bob, "bob-private", [Upload("travel.pdf", _text_pdf())])
    passage = engine.file_chunks(bob, res.file_id)[0]["text"]
    assert isinstance(engine.citation_view(bob, res.file_id, passage, page=1), PageView)
    assert engine.citation_view(admin, res.file_id, passage, page=1).rects  # an admin reads every KB file
    with pytest.raises(NotFound):
        engine.citation_view(carol, res.file_id, passage, page=1)
    with pytest.raises(NotFound):  # the cache never answers before the check
        engine.citation_view(carol, res.file_id, passage, page=1)
    # a file attached to bob's chat is his alone, admins included
    chat = engine.create_chat(bob, "mine")
    [attached] = engine.attach_to_chat(bob, chat.id, [md("notes.md", HANDBOOK_MD)])
    assert engine.citation_view(bob, attached.file_id, "Lost equipment must be reported").spans
    for other in (carol, admin):
        with pytest.raises(NotFound):
            engine.citation_view(other, attached.file_id, "Lost equipment must be reported")


def test_strict_mode_answer_citation_opens_on_its_page_without_a_model_call(engine):
    engine.save_settings(SYSTEM_ACTOR, {"strict": {"rag_strict_mode": True}})
    engine.create_kb(SYSTEM_ACTOR, "travel")
    [res] = engine.ingest(SYSTEM_ACTOR, "travel", [Upload("travel.pdf", _text_pdf())])
    answer = engine.ask(SYSTEM_ACTOR, "How much may a hotel cost per night?")
    assert answer.mode == "strict" and answer.hit and not answer.llm_called, answer
    cited = next(c for c in answer.citations if "Hotel costs" in c.text)
    view = engine.citation_view(SYSTEM_ACTOR, cited.file_id, cited.text, page=cited.page,
                                heading_path=cited.heading_path)
    assert isinstance(view, PageView) and view.page == 1 and view.rects and view.pages[0].positions == "text_layer"
