"""Chat page: opening a citation shows its source where it stands (the PDF page as an image
with the passage highlighted, a text file's passage marked in its paragraphs), in English and
Chinese; a closed citation renders nothing."""

from __future__ import annotations

from core.citations.types import NOTES
from core.ingest.service import Upload
from dashboard.locales.en import STRINGS as EN
from dashboard.locales.zh import STRINGS as ZH
from tests.citations.test_pdf_view import _text_pdf
from tests.dashboard.conftest import goto, new_app, sign_up

MEALS_MD = b"# Meals\n\nA hotel breakfast is never paid twice.\n\nDinner is paid up to 30 euros a night."


def _asked(engine, upload: Upload, question: str, language: str = "en"):
    """A signed-in user's chat with one answered question, redrawn from the stored message."""
    at = sign_up(new_app(), "alice")
    if language != "en":
        at.sidebar.selectbox(key="user_lang").select(language)  # as the reader picks it
        at.run()
    actor = engine.actor_for(at.session_state["user_id"])
    engine.save_settings(actor, {"chunking": {"chunk_size": 160, "chunk_overlap": 0},
                                 "strict": {"rag_strict_mode": True, "rag_strict_min_similarity": 0.3}})
    kb = engine.create_kb(actor, "travel")
    engine.ingest(actor, kb.id, [upload])
    at = goto(at, "chat")
    at.chat_input[0].set_value(question).run()
    at.run()  # the answer as a stored message
    assert not at.exception, [e.value for e in at.exception]
    [chat] = engine.list_chats(actor)
    message = engine.chat_messages(actor, chat.id)[-1]
    assert message.citations, message.content
    return at, message, message.citations[0]


def _open(at, message, c) -> None:
    """What a click on the citation's expander does: its state becomes open, and the page reruns."""
    at.session_state[f"cite_{message.id}_{c['n']}_{c['chunk_id']}"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_opening_a_pdf_citation_shows_the_highlighted_page_and_closed_ones_render_nothing(engine):
    at, message, c = _asked(engine, Upload("travel.pdf", _text_pdf()), "How much may a hotel cost per night?")
    assert c["source_name"] == "travel.pdf" and c["page"] == 1
    assert at.get("image") == []  # every citation closed: no page was rendered
    _open(at, message, c)
    close_up, whole = at.get("image")
    assert close_up.captions == ["The passage on page 1"] and whole.captions == ["Page 1 of 2"]
    assert all("/media/" in image.value[0] for image in (close_up, whole))  # served by the app itself
    assert c["text"] in [t.value for t in at.text]  # the passage, to copy


def test_the_page_caption_is_chinese_for_a_chinese_reader(engine):
    at, message, c = _asked(engine, Upload("travel.pdf", _text_pdf()), "How much may a hotel cost per night?", "zh")
    _open(at, message, c)
    assert [image.captions for image in at.get("image")] == [["第 1 页上的段落"], ["第 1 页，共 2 页"]]


def test_opening_a_text_citation_marks_the_passage_in_its_paragraphs(engine):
    at, message, c = _asked(engine, Upload("meals.md", MEALS_MD), "Is a hotel breakfast paid twice?")
    _open(at, message, c)
    [shown] = [m.value for m in at.markdown if "ragdesk-cited" in m.value]
    assert "<mark>" in shown and "breakfast" in shown.split("<mark>", 1)[1]
    assert at.get("image") == []


def test_every_citation_note_is_said_in_both_languages():
    for key in NOTES:
        assert EN.get(f"cite.note.{key}") and ZH.get(f"cite.note.{key}"), key
    assert "{page}" in ZH["cite.page"] and "{count}" in ZH["cite.page"]
