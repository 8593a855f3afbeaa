"""Metadata conditions inside both engines (the embedded qdrant-edge and the Qdrant client path):
every channel obeys them, each kind compares as its type, and a changed value replaces the old
one on every point of the file without touching a vector."""

from __future__ import annotations

import pytest

from core.metadata.conditions import MetaCondition
from core.metadata.where import condition
from core.metadata.fields import FieldDef
from core.retrieval import bm25
from core.types import ChannelQuery, SearchFilter
from tests.vectorstore.conftest import DIM, corpus_points, store  # noqa: F401 (the fixture)

YEAR = FieldDef("year", "number", "fy")
DAY = FieldDef("effective", "date", "fd")
TAGS = FieldDef("topics", "tags", "ft")
OFFICE = FieldDef("office", "text", "fo")
VALUES = {
    "f-zh-1": {"fy": 2023.0, "fd": "2023-12-31T00:00:00Z", "ft": ["sport"], "fo": "上海"},
    "f-zh-2": {"fy": 2025.0, "fd": "2025-03-01T00:00:00Z", "ft": ["hr", "travel"], "fo": "上海"},
    "f-en-1": {"fy": 2024.0, "fd": "2024-06-30T23:59:59Z", "ft": ["sport"], "fo": "Lisbon"},
    "f-en-2": {"fy": 2025.5, "fd": "2025-03-02T00:00:00Z", "ft": ["travel"], "fo": "Lisbon"},
}  # f-mix has no values at all
INDEXES = {"meta.fy": "number", "meta.fd": "date", "meta.ft": "tags", "meta.fo": "text"}


@pytest.fixture
def tagged(store):  # noqa: F811
    points = corpus_points()
    store.create_collection("kb", DIM)
    store.upsert("kb", points)
    store.set_file_metadata("kb", VALUES, INDEXES)
    return store, points


def _files(store, conds: tuple[MetaCondition, ...], channel: str = "dense", query: str = "travel 差旅 Panthers 黑豹队") -> set[str]:
    flt = SearchFilter(metadata=conds)
    if channel == "dense":
        q = ChannelQuery("kb", 50, flt, dense=[1.0] * DIM)
    else:
        q = ChannelQuery("kb", 50, flt, sparse=bm25.encode_query(query))
    return {p.payload["file_id"] for p in store.search_batch([q])[0]}


@pytest.mark.parametrize("channel", ["dense", "bm25"])
def test_every_channel_returns_only_files_inside_the_filter(tagged, channel):
    store, _ = tagged
    unfiltered = _files(store, (), channel)
    assert {"f-zh-1", "f-en-1"} <= unfiltered  # the query reaches files the filter leaves out
    assert _files(store, (condition(TAGS, "travel"),), channel) == {"f-zh-2", "f-en-2"}
    assert _files(store, (condition(OFFICE, "上海"), condition(TAGS, ["travel", "hr"])), channel) == {"f-zh-2"}


def test_hybrid_prefetch_obeys_the_filter(tagged):
    store, _ = tagged
    found = store.search_hybrid("kb", [1.0] * DIM, bm25.encode_query("Panthers travel 差旅"), 20,
                                SearchFilter(metadata=(condition(OFFICE, "Lisbon"),)), 20)
    assert {p.payload["file_id"] for p in found} == {"f-en-1", "f-en-2"}


def test_numbers_compare_as_numbers(tagged):
    store, _ = tagged
    assert _files(store, (condition(YEAR, 2025),)) == {"f-zh-2"}  # 2025.5 is not 2025
    assert _files(store, (condition(YEAR, {"gte": 2025}),)) == {"f-zh-2", "f-en-2"}
    assert _files(store, (condition(YEAR, {"gt": 2024, "lt": 2025.5}),)) == {"f-zh-2"}
    assert _files(store, (condition(YEAR, {"lte": "2024"}),)) == {"f-zh-1", "f-en-1"}  # "2024" read as a number
    assert _files(store, (condition(YEAR, {"gt": 10000}),)) == set()


def test_dates_compare_as_moments_and_a_day_means_the_whole_day(tagged):
    store, _ = tagged
    assert _files(store, (condition(DAY, "2025-03-01"),)) == {"f-zh-2"}
    assert _files(store, (condition(DAY, {"lte": "2024-06-30"}),)) == {"f-zh-1", "f-en-1"}  # 23:59:59 that day
    assert _files(store, (condition(DAY, {"lt": "2024-06-30"}),)) == {"f-zh-1"}
    assert _files(store, (condition(DAY, {"gt": "2025-03-01"}),)) == {"f-en-2"}
    assert _files(store, (condition(DAY, {"gte": "2024-01-01", "lte": "2024-12-31"}),)) == {"f-en-1"}
    assert _files(store, (condition(DAY, "2025-03-02T00:00:00+00:00"),)) == {"f-en-2"}


def test_tags_match_any_of_and_text_matches_exactly(tagged):
    store, _ = tagged
    assert _files(store, (condition(TAGS, ["hr", "sport"]),)) == {"f-zh-1", "f-zh-2", "f-en-1"}
    assert _files(store, (condition(OFFICE, "lisbon"),)) == set()  # exact text
    assert _files(store, (condition(OFFICE, ["Lisbon", "上海"]),)) == set(VALUES)


def test_a_changed_value_replaces_the_old_one_without_touching_vectors(tagged):
    store, points = tagged
    before = {p.id: p.score for p in store.search_dense("kb", [1.0] * DIM, 50, SearchFilter())}
    store.set_file_metadata("kb", {"f-en-1": {"fy": 2025.0, "ft": ["travel"]}}, INDEXES)
    assert "f-en-1" in _files(store, (condition(YEAR, 2025),))
    assert "f-en-1" not in _files(store, (condition(OFFICE, "Lisbon"),))  # the whole object was replaced
    after = {p.id: p.score for p in store.search_dense("kb", [1.0] * DIM, 50, SearchFilter())}
    assert after == pytest.approx(before)
    texts = {p.payload["text"] for p in store.scroll_file("kb", "f-en-1")}
    assert texts == {p.payload["text"] for p in points if p.payload["file_id"] == "f-en-1"}


def test_the_embedded_engine_indexes_each_field_by_its_type(tmp_path):
    import qdrant_edge as qe

    from core.vectorstore.edge import EdgeStore

    s = EdgeStore(tmp_path / "vectors")
    try:
        s.create_collection("kb", DIM)
        s.upsert("kb", corpus_points())
        s.set_file_metadata("kb", VALUES, INDEXES)
        with s._shard("kb") as shard:
            schema = shard.engine.info().payload_schema
        kinds = {k: str(v.data_type) for k, v in schema.items() if k.startswith("meta.")}
    finally:
        s.close()
    assert set(kinds) == set(INDEXES)
    assert "Float" in kinds["meta.fy"] and "Datetime" in kinds["meta.fd"]
    assert "Keyword" in kinds["meta.ft"] and "Keyword" in kinds["meta.fo"]
    assert qe  # the engine module itself, not a stand-in
