"""Filters through the engine's search (SQLite and PostgreSQL for the new tables, the embedded
store): each channel narrows inside the engine, not after the top k; values change the payload
at once without re-embedding; a reindex and a new file keep or get their metadata."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN
from tests.engine.conftest import md
from tests.metadata.conftest import build

QUERY = "hotel costs per night"


def _names(result) -> set[str]:
    return {h.source_name for h in result.hits}


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_a_filter_narrows_each_mode(engine, mode):
    build(engine)
    everything = _names(engine.search(ADMIN, QUERY, ["policies"], mode=mode, min_score=0))
    assert {"lisbon.md", "porto.md"} <= everything
    assert _names(engine.search(ADMIN, QUERY, ["policies"], mode=mode, min_score=0,
                                where={"office": "Porto"})) == {"porto.md"}
    assert _names(engine.search(ADMIN, QUERY, ["policies"], mode=mode, min_score=0,
                                where={"year": {"gte": 2025}, "office": ["Lisbon", "Porto"]})) == {"lisbon.md"}
    assert _names(engine.search(ADMIN, QUERY, ["policies"], mode=mode, min_score=0,
                                where={"effective": {"lte": "2024-12-31"}})) == {"porto.md"}
    assert _names(engine.search(ADMIN, QUERY, ["policies"], mode=mode, min_score=0, where={"year": 1999})) == set()


def test_chinese_values_and_the_translated_keyword_channel(sqlite_engine):
    build(sqlite_engine)
    # Chinese question, English passages: the translated BM25 channel (bilingual.py) runs under the filter too
    found = sqlite_engine.search(ADMIN, "酒店 住宿费", ["policies"], mode="hybrid", min_score=0,
                                 where={"topics": "hotel"})
    assert _names(found) <= {"lisbon.md", "shanghai.md"} and "shanghai.md" in _names(found)
    assert _names(sqlite_engine.search(ADMIN, "住宿费", ["policies"], mode="bm25", min_score=0,
                                       where={"office": "上海"})) == {"shanghai.md"}
    assert _names(sqlite_engine.search(ADMIN, "住宿费", ["policies"], mode="bm25", min_score=0,
                                       where={"topics": "差旅", "office": "Lisbon"})) == set()
    translated = sqlite_engine.search(ADMIN, "酒店", ["policies"], mode="hybrid", min_score=0,
                                      where={"office": "Lisbon"})
    assert _names(translated) <= {"lisbon.md"}


def test_the_filter_is_applied_before_the_top_k_not_after(sqlite_engine):
    """Forty files answer the query better than the one inside the filter, and only five
    candidates are recalled per channel: a post-filter of the top k would find nothing."""
    e = sqlite_engine
    e.save_settings(ADMIN, {"retrieval": {"candidates": 5}})
    build(e)
    noise = [md(f"noise-{i}.md", f"# Hotel note {i}\n\nHotel costs per night, hotel costs per night: hotel {i}.\n")
             for i in range(40)]
    assert all(r.status == "indexed" for r in e.ingest(ADMIN, "policies", noise))
    plain = e.search(ADMIN, QUERY, ["policies"], mode="hybrid", min_score=0, top_k=5)
    assert "porto.md" not in _names(plain)
    for mode in ("dense", "bm25", "hybrid"):
        assert _names(e.search(ADMIN, QUERY, ["policies"], mode=mode, min_score=0, top_k=5,
                               where={"office": "Porto"})) == {"porto.md"}, mode


def test_a_value_set_changes_the_payload_at_once_without_re_embedding(engine):
    ids = build(engine)
    before = {p.id: p.payload["text"] for p in engine._store.scroll_file(_collection(engine), ids["porto.md"])}
    engine.set_file_metadata(ADMIN, ids["porto.md"], {"office": "Lisbon", "topics": "hotel|budget"})
    assert _names(engine.search(ADMIN, QUERY, ["policies"], mode="bm25", min_score=0,
                                where={"office": "Lisbon"})) == {"lisbon.md", "porto.md"}
    assert _names(engine.search(ADMIN, QUERY, ["policies"], mode="bm25", min_score=0,
                                where={"topics": "budget"})) == {"porto.md"}
    after = engine._store.scroll_file(_collection(engine), ids["porto.md"])
    assert {p.id: p.payload["text"] for p in after} == before  # the same points, only their payload changed
    assert engine.file_metadata(ADMIN, ids["porto.md"]).values["topics"] == ["budget", "hotel"]
    engine.set_file_metadata(ADMIN, ids["porto.md"], {"office": None})  # null removes a value
    assert "office" not in engine.file_metadata(ADMIN, ids["porto.md"]).values
    assert _names(engine.search(ADMIN, QUERY, ["policies"], mode="bm25", min_score=0,
                                where={"office": "Lisbon"})) == {"lisbon.md"}


def _collection(engine) -> str:
    return engine.get_kb(ADMIN, "policies").collection


def test_automatic_fields_and_a_new_file_gets_them_on_ingest(sqlite_engine):
    e = sqlite_engine
    build(e)
    page = "<html><head><title>里斯本酒店标准</title></head><body><p>Hotel costs in Lisbon: 180 euros.</p></body></html>"
    [result] = e.ingest(ADMIN, "policies", [Upload("offices/lisbon/hotels.html", page.encode())])
    assert result.status == "indexed"
    [rec] = [f for f in e.list_files(ADMIN, "policies") if f.name.endswith("hotels.html")]
    values = e.file_metadata(ADMIN, rec.id).values
    assert values["file_name"] == "hotels.html" and values["folder"] == "offices/lisbon"
    assert values["title"] == "里斯本酒店标准" and values["modified"].endswith("Z")
    assert _names(e.search(ADMIN, QUERY, ["policies"], mode="bm25", min_score=0,
                           where={"folder": "offices/lisbon"})) == {"offices/lisbon/hotels.html"}
    assert _names(e.search(ADMIN, QUERY, ["policies"], mode="bm25", min_score=0,
                           where={"title": "里斯本酒店标准"})) == {"offices/lisbon/hotels.html"}
    assert _names(e.search(ADMIN, QUERY, ["policies"], mode="bm25", min_score=0,
                           where={"file_name": "porto.md", "modified": {"gte": "2020-01-01"}})) == {"porto.md"}


def test_a_reindex_keeps_the_metadata(sqlite_engine):
    e = sqlite_engine
    build(e)
    old = _collection(e)
    result = e.reindex(ADMIN, "policies")
    assert result.status == "done" and _collection(e) != old
    assert _names(e.search(ADMIN, QUERY, ["policies"], mode="bm25", min_score=0,
                           where={"office": "Porto"})) == {"porto.md"}


def test_a_deleted_field_leaves_the_payload_and_an_unknown_field_is_an_error(sqlite_engine):
    e = sqlite_engine
    ids = build(e)
    e.delete_metadata_field(ADMIN, "policies", "office")
    with pytest.raises(InvalidInput, match="office"):
        e.search(ADMIN, QUERY, ["policies"], where={"office": "Porto"})
    points = e._store.scroll_file(_collection(e), ids["porto.md"])
    assert points and all(set(p.payload["meta"]) >= {"file_name"} for p in points)
    assert all(not any(v == "Porto" for v in p.payload["meta"].values()) for p in points)
    with pytest.raises(InvalidInput, match="not a number"):
        e.search(ADMIN, QUERY, ["policies"], where={"year": "soon"})
    with pytest.raises(InvalidInput, match="range"):
        e.search(ADMIN, QUERY, ["policies"], where={"topics": {"gte": "a"}})


def test_a_filter_naming_a_field_another_kb_lacks_leaves_that_kb_out(sqlite_engine):
    e = sqlite_engine
    build(e)
    e.create_kb(ADMIN, "other")
    assert all(r.status == "indexed" for r in e.ingest(ADMIN, "other", [md("hotel.md", "# Hotels\n\nHotel costs per night are 90 euros.\n")]))
    both = e.search(ADMIN, QUERY, None, mode="bm25", min_score=0)
    assert "hotel.md" in _names(both)
    assert _names(e.search(ADMIN, QUERY, None, mode="bm25", min_score=0, where={"office": "Porto"})) == {"porto.md"}
    # an automatic field exists everywhere
    assert _names(e.search(ADMIN, QUERY, None, mode="bm25", min_score=0, where={"file_name": "hotel.md"})) == {"hotel.md"}
