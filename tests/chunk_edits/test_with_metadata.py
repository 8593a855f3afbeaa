"""Chunk edits and metadata filters together: a chunk edited, re-enabled or added by hand carries the
file's metadata as it is now, so a filter finds it (an edit row keeps the payload of its first
edit, which would otherwise bring back values changed since)."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR as ADMIN
from tests.chunk_edits.conftest import chunk_with


def found(engine, query: str, where: dict) -> list[str]:
    return [h.text for h in engine.search(ADMIN, query, ["office"], mode="bm25", min_score=0.0, where=where).hits]


def test_edited_reenabled_and_added_chunks_carry_the_files_current_metadata(engine, handbook):
    engine.define_metadata_field(ADMIN, "office", "site", "text")
    engine.set_file_metadata(ADMIN, handbook, {"site": "leeds"})
    parking = chunk_with(engine, handbook, "north garage")
    engine.edit_chunk(ADMIN, handbook, parking.chunk_index, text="Visitors park in the zeppelin hangar.")
    engine.disable_chunk(ADMIN, handbook, parking.chunk_index)
    engine.set_file_metadata(ADMIN, handbook, {"site": "lisbon"})  # changed while the chunk had no point
    engine.enable_chunk(ADMIN, handbook, parking.chunk_index)
    assert found(engine, "zeppelin hangar", {"site": "lisbon"}) == ["Visitors park in the zeppelin hangar."]
    assert found(engine, "zeppelin hangar", {"site": "leeds"}) == []
    engine.add_chunk(ADMIN, handbook, "Bicycles are kept in the courtyard shed.")
    assert found(engine, "courtyard shed", {"site": "lisbon"}) == ["Bicycles are kept in the courtyard shed."]
