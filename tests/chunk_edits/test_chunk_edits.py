"""Chunk editing on the real engine (embedded Qdrant, SQLite and PostgreSQL): an edit is searched at
once in dense and BM25, a disabled chunk is never retrieved and strict mode refuses what only it
answered, keywords reach BM25 only, edits survive a reindex unless their passage left the file,
readers are refused, and the history says who and when."""

from __future__ import annotations

import pytest

from core.answering.replies import no_hit_reply
from core.errors import InvalidInput, NotFound, PermissionDenied
from core.settings.model import StrictModeSettings
from core.types import SYSTEM_ACTOR as ADMIN
from tests.chunk_edits.conftest import chunk_with, texts_found


def test_listing_shows_the_files_chunks_in_order(engine, handbook):
    listing = engine.list_chunks(ADMIN, handbook)
    assert listing.file_name == "handbook.md" and listing.notice == ""
    assert [c.chunk_index for c in listing.chunks] == sorted(c.chunk_index for c in listing.chunks)
    assert any("north garage" in c.text for c in listing.chunks)
    assert all(c.state == "original" and not c.disabled for c in listing.chunks)


def test_an_edit_is_searched_at_once_and_the_old_text_is_gone(engine, handbook):
    parking = chunk_with(engine, handbook, "north garage")
    assert any("north garage" in t for t in texts_found(engine, "garage", mode="bm25"))
    new = "Visitors park in the south zeppelin hangar; ask reception for a permit."
    view = engine.edit_chunk(ADMIN, handbook, parking.chunk_index, text=new)
    assert view.state == "edited" and view.text == new and "north garage" in view.original_text
    for mode in ("bm25", "hybrid", "dense"):
        assert not any("north garage" in t for t in texts_found(engine, "north garage", mode=mode)), mode
    assert texts_found(engine, "zeppelin hangar", mode="bm25")[0] == new
    assert texts_found(engine, "Visitors park in the south zeppelin hangar", mode="dense")[0] == new
    # the file's count still matches its points (the doctor agrees)
    assert engine.get_file(ADMIN, handbook).chunk_count == len(engine.list_chunks(ADMIN, handbook).chunks)


def test_a_disabled_chunk_is_never_retrieved_and_strict_mode_refuses_what_only_it_answered(engine, handbook):
    engine.save_settings(ADMIN, {"strict": {"rag_strict_mode": True}})
    question = "Who replaces a lost badge?"
    before = engine.ask(ADMIN, question, temporary=True)
    assert before.hit and "security office" in " ".join(c.text for c in before.citations)
    badges = chunk_with(engine, handbook, "lost badge")
    view = engine.disable_chunk(ADMIN, handbook, badges.chunk_index)
    assert view.disabled
    for mode in ("bm25", "hybrid", "dense"):
        assert not any("security office" in t for t in texts_found(engine, "lost badge security office", mode=mode)), mode
    refused = engine.ask(ADMIN, question, temporary=True)
    assert not refused.hit and not refused.llm_called and refused.text == no_hit_reply(StrictModeSettings(), question)
    # still listed, marked disabled, and out of the file's count
    listing = engine.list_chunks(ADMIN, handbook)
    assert [c.disabled for c in listing.chunks if c.chunk_index == badges.chunk_index] == [True]
    assert engine.get_file(ADMIN, handbook).chunk_count == len(listing.chunks) - 1
    engine.enable_chunk(ADMIN, handbook, badges.chunk_index)
    assert engine.ask(ADMIN, question, temporary=True).hit


def test_an_edited_and_an_added_chunk_are_knowledge_base_content_in_strict_mode(engine, handbook):
    engine.save_settings(ADMIN, {"strict": {"rag_strict_mode": True}})
    question = "When does the library open every weekday morning?"
    assert not engine.ask(ADMIN, question, temporary=True).hit
    added = engine.add_chunk(ADMIN, handbook, "The library opens at eight every weekday morning.")
    assert added.state == "added" and added.chunk_index >= 1_000_000
    answer = engine.ask(ADMIN, question, temporary=True)
    assert answer.hit and any("library opens at eight" in c.text for c in answer.citations)


def test_keywords_reach_bm25_and_not_the_text(engine, handbook):
    lunch = chunk_with(engine, handbook, "canteen")
    assert not any("canteen" in t for t in texts_found(engine, "cafeteria", mode="bm25"))
    view = engine.edit_chunk(ADMIN, handbook, lunch.chunk_index, keywords=["cafeteria", "cafeteria", " menu "])
    assert view.keywords == ["cafeteria", "menu"] and "cafeteria" not in view.text and view.state == "edited"
    [hit] = [h for h in engine.search(ADMIN, "cafeteria", ["office"], mode="bm25", min_score=0.0).hits]
    assert "canteen" in hit.text and "cafeteria" not in hit.text


def test_a_reindex_of_the_unchanged_file_keeps_every_edit(engine, handbook):
    parking = chunk_with(engine, handbook, "north garage")
    lunch = chunk_with(engine, handbook, "canteen")
    badges = chunk_with(engine, handbook, "lost badge")
    engine.edit_chunk(ADMIN, handbook, parking.chunk_index, text="Visitors park at the zeppelin hangar.")
    engine.edit_chunk(ADMIN, handbook, lunch.chunk_index, keywords=["cafeteria"])
    engine.disable_chunk(ADMIN, handbook, badges.chunk_index)
    engine.add_chunk(ADMIN, handbook, "The library opens at eight.")
    before = engine.list_chunks(ADMIN, handbook)
    result = engine.reindex(ADMIN, "office")
    assert result.status == "done", result
    after = engine.list_chunks(ADMIN, handbook)
    assert [(c.text, c.keywords, c.disabled, c.state) for c in after.chunks] == \
        [(c.text, c.keywords, c.disabled, c.state) for c in before.chunks]
    assert after.notice == ""
    assert texts_found(engine, "zeppelin", mode="bm25") == ["Visitors park at the zeppelin hangar."]
    assert not any("north garage" in t for t in texts_found(engine, "north garage", mode="bm25"))
    assert any("canteen" in t for t in texts_found(engine, "cafeteria", mode="bm25"))
    assert not any("lost badge" in t for t in texts_found(engine, "lost badge", mode="bm25"))
    assert texts_found(engine, "library", mode="bm25") == ["The library opens at eight."]
    assert engine.get_file(ADMIN, handbook).chunk_count == len(after.chunks) - 1


def test_a_reindex_that_no_longer_makes_the_edited_passage_drops_the_edit_and_says_so(engine, handbook):
    parking = chunk_with(engine, handbook, "north garage")
    engine.edit_chunk(ADMIN, handbook, parking.chunk_index, text="Visitors park at the zeppelin hangar.")
    engine.add_chunk(ADMIN, handbook, "The library opens at eight.")
    # smaller chunks: the parking passage is split, no chunk holds it whole any more
    engine.save_settings(ADMIN, {"chunking": {"chunk_size": 50}})
    assert engine.reindex(ADMIN, "office").status == "done"
    listing = engine.list_chunks(ADMIN, handbook)
    assert "dropped" in listing.notice and "1 chunk edit" in listing.notice
    assert not any(c.state == "edited" for c in listing.chunks)
    assert any("north garage" in c.text for c in listing.chunks)
    assert texts_found(engine, "zeppelin", mode="bm25") == []
    assert texts_found(engine, "library", mode="bm25") == ["The library opens at eight."]  # added: kept
    dropped = [h for h in engine.chunk_history(ADMIN, handbook) if h.action == "dropped"]
    assert len(dropped) == 1 and dropped[0].actor_name == "ragdesk" and "reindex" in dropped[0].note


def test_a_reader_may_view_but_not_edit(engine, handbook, reader):
    assert engine.list_chunks(reader, handbook).chunks
    index = chunk_with(engine, handbook, "canteen").chunk_index
    for call in (lambda: engine.edit_chunk(reader, handbook, index, text="hacked"),
                 lambda: engine.edit_chunk(reader, handbook, index, keywords=["x"]),
                 lambda: engine.disable_chunk(reader, handbook, index),
                 lambda: engine.enable_chunk(reader, handbook, index),
                 lambda: engine.add_chunk(reader, handbook, "injected"),
                 lambda: engine.chunk_history(reader, handbook)):
        with pytest.raises(PermissionDenied):
            call()
    assert not any("hacked" in c.text or "injected" in c.text for c in engine.list_chunks(ADMIN, handbook).chunks)
    assert engine.chunk_history(ADMIN, handbook) == []


def test_a_private_knowledge_base_hides_its_chunks_from_others(engine, handbook, reader):
    engine.update_kb(ADMIN, "office", visibility="private")
    with pytest.raises(NotFound):
        engine.list_chunks(reader, handbook)
    with pytest.raises(NotFound):
        engine.edit_chunk(reader, handbook, 0, text="x")


def test_history_records_who_when_before_and_after(engine, handbook, reader):
    lunch = chunk_with(engine, handbook, "canteen")
    engine.edit_chunk(ADMIN, handbook, lunch.chunk_index, text="Lunch is served from twelve to two.")
    engine.disable_chunk(ADMIN, handbook, lunch.chunk_index)
    engine.enable_chunk(ADMIN, handbook, lunch.chunk_index)
    history = engine.chunk_history(ADMIN, handbook)
    assert [h.action for h in history] == ["enable", "disable", "edit"]
    edit = history[-1]
    assert edit.actor_id == ADMIN.user_id and edit.actor_name == ADMIN.name and edit.at is not None
    assert "canteen" in edit.before["text"] and edit.after["text"] == "Lunch is served from twelve to two."
    assert history[0].at >= history[1].at >= edit.at


def test_bad_input_is_refused_clearly(engine, handbook):
    with pytest.raises(InvalidInput, match="new text, new keywords"):
        engine.edit_chunk(ADMIN, handbook, 0)
    with pytest.raises(InvalidInput, match="empty"):
        engine.edit_chunk(ADMIN, handbook, 0, text="   ")
    with pytest.raises(NotFound, match="no chunk 999"):
        engine.edit_chunk(ADMIN, handbook, 999, text="x")
    with pytest.raises(InvalidInput, match="at most"):
        engine.edit_chunk(ADMIN, handbook, 0, keywords=[f"k{i}" for i in range(60)])
    with pytest.raises(NotFound):
        engine.list_chunks(ADMIN, "nope")


def test_files_read_whole_show_the_chunks_as_edited(engine, handbook):
    """'Using Entire Document' and the file viewer read a file whole: a disabled passage stays out,
    an edited one reads as edited, an added one is there; a file without edits reads as parsed."""
    from core.answer_context import answer_context

    engine.update_kb(ADMIN, "office", full_document=True)
    snap = engine._snapshot()
    context = answer_context(engine._parts, snap, engine._searcher(snap), ADMIN)
    kb_id = engine.get_kb(ADMIN, "office").id
    [untouched] = context.whole_documents((kb_id,), ())
    assert "lost badge" in untouched.text and "north garage" in untouched.text
    engine.disable_chunk(ADMIN, handbook, chunk_with(engine, handbook, "lost badge").chunk_index)
    engine.edit_chunk(ADMIN, handbook, chunk_with(engine, handbook, "north garage").chunk_index,
                      text="Visitors park at the zeppelin hangar.")
    engine.add_chunk(ADMIN, handbook, "The library opens at eight.")
    for doc in (context.whole_documents((kb_id,), ())[0], context.read_file(handbook)):
        assert "lost badge" not in doc.text and "north garage" not in doc.text
        assert "zeppelin hangar" in doc.text and "canteen serves lunch" in doc.text and "library opens" in doc.text
