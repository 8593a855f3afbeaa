"""The File Manager's chunk editor (AppTest on the real page): edit a chunk's text and keywords,
disable it, add one; a reader of a shared knowledge base sees the chunks without any editing control."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import button, goto, new_app, sign_up, texts

DOC = "# Office\n\n## Parking\n\nVisitors park in the north garage.\n\n## Lunch\n\nThe canteen serves lunch at noon."


def _chunk_key(engine, actor, file_id: str, word: str) -> tuple[str, int]:
    [c] = [c for c in engine.list_chunks(actor, file_id).chunks if word in c.text]
    return f"ce_{file_id}_{c.chunk_index}", c.chunk_index


def test_the_owner_edits_disables_and_adds_chunks_and_a_reader_only_reads(engine):
    at = sign_up(new_app(), "alice")
    alice = engine.actor_for(at.session_state["user_id"])
    engine.save_settings(alice, {"chunking": {"chunk_size": 60, "chunk_overlap": 0}})
    engine.create_kb(alice, "office", visibility="public")
    [result] = engine.ingest(alice, "office", [Upload("office.md", DOC.encode())])
    assert result.status == "indexed"
    goto(at, "files")
    assert "Chunks" in texts(at)
    key, index = _chunk_key(engine, alice, result.file_id, "north garage")
    at.text_area(key=f"{key}_text").input("Visitors park at the zeppelin hangar.")
    at.text_input(key=f"{key}_kw").input("car park, parking")
    [save] = [b for b in at.button if b.label == "Save chunk" and b.form_id == f"{key}_form"]
    save.click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"Chunk #{index} saved and re-indexed." in texts(at)
    at.run()  # another rerun (a refreshing panel, a busy server) keeps the confirmation until the next action
    assert f"Chunk #{index} saved and re-indexed." in texts(at)
    hits = engine.search(alice, "zeppelin", ["office"], mode="bm25", min_score=0.0).hits
    assert hits[0].text == "Visitors park at the zeppelin hangar."
    [view] = [c for c in engine.list_chunks(alice, result.file_id).chunks if c.chunk_index == index]
    assert view.keywords == ["car park", "parking"] and view.state == "edited"
    lunch_key, lunch = _chunk_key(engine, alice, result.file_id, "canteen")
    [disable] = [b for b in at.button if b.key == f"{lunch_key}_disable"]
    disable.click()
    at.run()
    assert f"Chunk #{lunch} disabled." in texts(at)
    assert not engine.search(alice, "canteen", ["office"], mode="bm25", min_score=0.0).hits
    at.text_area(key=f"ce_add_text_{result.file_id}").input("The library opens at eight.")
    button(at, "Add chunk").click()
    at.run()
    assert "added." in texts(at)
    assert engine.search(alice, "library", ["office"], mode="bm25", min_score=0.0).hits[0].text == "The library opens at eight."
    history = next(d.value for d in at.dataframe if "Action" in d.value.columns)
    assert list(history["Action"]) == ["add", "disable", "edit"] and set(history["Who"]) == {"alice"}
    # bob reads the public knowledge base: chunks shown, no editing control
    bob_app = sign_up(new_app(), "bob")
    goto(bob_app, "files")
    assert "only the knowledge base's owner or an admin may change them" in texts(bob_app)
    assert not [b for b in bob_app.button if (b.key or "").startswith("ce_")]
    assert not [b for b in bob_app.button if b.label in ("Save chunk", "Add chunk", "Disable", "Enable")]
    assert "Visitors park at the zeppelin hangar." in [x.value for x in bob_app.text]
