"""One suite, both engines: the embedded qdrant-edge store and qdrant-client (server stand-in)."""

from __future__ import annotations

import pytest

from core.errors import AlreadyExists, InvalidInput, NotFound
from core.retrieval import bm25
from core.types import ChannelQuery, SearchFilter, SparseVector, VectorPoint
from core.vectorstore._common import RRF_K
from core.vectorstore.base import READY_KEY, VectorStore
from tests.vectorstore.conftest import DIM, corpus_points, expected_bm25, expected_cosine, unit_vectors

NO_FILTER = SearchFilter()


def test_collection_lifecycle(store: VectorStore) -> None:
    assert store.list_collections() == []
    store.create_collection("kb-1", DIM)
    store.create_collection("kb_2", 8)
    assert store.list_collections() == ["kb-1", "kb_2"]
    assert store.collection_exists("kb-1") and not store.collection_exists("kb-3")
    assert store.dimension("kb-1") == DIM and store.dimension("kb_2") == 8
    with pytest.raises(AlreadyExists):
        store.create_collection("kb-1", DIM)
    store.drop_collection("kb-1")
    store.drop_collection("kb-1")  # missing: no error
    assert store.list_collections() == ["kb_2"]
    with pytest.raises(NotFound):
        store.dimension("kb-1")
    with pytest.raises(NotFound):
        store.count("kb-1")


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "名字", "-lead", "x" * 121])
def test_bad_collection_names_are_refused(store: VectorStore, bad: str) -> None:
    with pytest.raises(InvalidInput):
        store.create_collection(bad, DIM)


def test_upsert_counts_and_replaces(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    assert store.count("kb") == len(points)
    assert store.count("kb", file_id="f-zh-1") == 3
    changed = VectorPoint(points[0].id, points[0].dense, points[0].sparse, {**points[0].payload, "text": "new"})
    store.upsert("kb", [changed])  # same id: replaced, not added
    assert store.count("kb") == len(points)
    assert store.scroll_file("kb", "f-zh-1")[0].payload["text"] == "new"


def test_bad_points_are_refused_whole(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    good = corpus_points()[0]
    short = VectorPoint("0b6a3e3c-6c3b-4a3e-9a57-1f8f4d8e8f01", [0.1] * (DIM - 1), good.sparse, good.payload)
    with pytest.raises(InvalidInput, match="dimensions"):
        store.upsert("kb", [short])
    no_file = VectorPoint("0b6a3e3c-6c3b-4a3e-9a57-1f8f4d8e8f02", good.dense, good.sparse, {"kb_id": "kb-a"})
    with pytest.raises(InvalidInput, match="file_id"):
        store.upsert("kb", [no_file])
    with pytest.raises(InvalidInput, match="UUID"):
        store.upsert("kb", [VectorPoint("chunk-1", good.dense, good.sparse, good.payload)])
    with pytest.raises(InvalidInput, match="dimensions"):
        store.search_dense("kb", [1.0, 0.0], 3, NO_FILTER)
    assert store.count("kb") == len(points)


def test_delete_file_removes_exactly_its_points(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    before = store.file_ids("kb")
    store.delete_file("kb", "f-en-1")
    assert store.count("kb", file_id="f-en-1") == 0
    assert store.count("kb") == len(points) - before["f-en-1"]
    after = store.file_ids("kb")
    assert "f-en-1" not in after
    assert after == {k: v for k, v in before.items() if k != "f-en-1"}
    store.delete_file("kb", "no-such-file")  # nothing matches: nothing changes
    assert store.count("kb") == len(points) - before["f-en-1"]


def test_file_ids_counts(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    expected: dict[str, int] = {}
    for p in points:
        expected[p.payload["file_id"]] = expected.get(p.payload["file_id"], 0) + 1
    assert store.file_ids("kb") == expected
    store.create_collection("empty", DIM)
    assert store.file_ids("empty") == {}


def test_scroll_file_in_chunk_order(store: VectorStore) -> None:
    store.create_collection("kb", DIM)
    points = corpus_points()
    zh1 = [p for p in points if p.payload["file_id"] == "f-zh-1"]
    store.upsert("kb", list(reversed(points)))  # stored out of order on purpose
    got = store.scroll_file("kb", "f-zh-1")
    assert [p.payload["chunk_index"] for p in got] == [0, 1, 2]
    assert [p.id for p in got] == [p.id for p in zh1]
    assert [p.payload["text"] for p in got] == [p.payload["text"] for p in zh1]
    assert store.scroll_file("kb", "no-such-file") == []


def test_dense_ranking_is_cosine(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    query = (unit_vectors(1, seed=99)[0] + 0.5 * unit_vectors(1)[0]).tolist()
    want = expected_cosine(points, query)
    got = store.search_dense("kb", query, 5, NO_FILTER)
    assert [p.id for p in got] == [i for i, _ in want[:5]]
    # dense vectors are stored as float16: cosine within 2e-3 of the exact float64 value
    assert [p.score for p in got] == pytest.approx([s for _, s in want[:5]], abs=2e-3)
    assert got[0].payload["text"]


@pytest.mark.parametrize(
    "query, top_text",
    [("黑豹队的防守丢了多少分？", "黑豹队的防守只丢了308分"), ("How many sacks did Kawann Short have?", "Kawann Short led")],
)
def test_sparse_ranking_is_bm25_with_engine_idf(
    filled: tuple[VectorStore, list[VectorPoint]], query: str, top_text: str
) -> None:
    store, points = filled
    vector = bm25.encode_query(query)
    want = expected_bm25(points, vector)
    got = store.search_sparse("kb", vector, 10, NO_FILTER)
    assert got[0].payload["text"].startswith(top_text)
    assert [p.id for p in got] == [i for i, _ in want[:10]]
    assert [p.score for p in got] == pytest.approx([s for _, s in want[:10]], rel=1e-3)


def test_sparse_query_of_stopwords_matches_nothing(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, _ = filled
    assert store.search_sparse("kb", bm25.encode_query("the of 的"), 5, NO_FILTER) == []
    with pytest.raises(NotFound):
        store.search_sparse("missing", SparseVector([], []), 5, NO_FILTER)


def test_hybrid_is_rrf_of_both_channels(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    dense = points[1].dense  # the dense channel's best is the 肖特 chunk...
    sparse = bm25.encode_query("Travel expenses receipts")  # ...the sparse channel's is the travel chunk
    ranks: dict[str, float] = {}
    for ranking in (expected_cosine(points, dense), expected_bm25(points, sparse)):
        for rank, (pid, _) in enumerate(ranking):
            ranks[pid] = ranks.get(pid, 0.0) + 1 / (RRF_K + rank)
    want = sorted(ranks.items(), key=lambda r: -r[1])
    got = store.search_hybrid("kb", dense, sparse, 4, NO_FILTER, prefetch_limit=len(points))
    assert {p.id for p in got[:2]} == {points[1].id, points[8].id}
    assert [p.score for p in got] == pytest.approx([s for _, s in want[:4]], rel=1e-4)
    # RRF ties (rank r in one channel only) may be broken either way: check each id's own fused score
    assert all(ranks[p.id] == pytest.approx(p.score, rel=1e-4) for p in got)


def test_filters_restrict_every_search(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    by_kb = SearchFilter(kb_ids=("kb-a",))
    by_files = SearchFilter(file_ids=("f-en-2", "f-mix"))
    both = SearchFilter(kb_ids=("kb-b",), file_ids=("f-en-1", "f-zh-1"))
    dense, sparse = points[0].dense, bm25.encode_query("黑豹队 Panthers 年假 leave 向量")
    for flt, allowed in [
        (by_kb, {"f-zh-1", "f-zh-2"}),
        (by_files, {"f-en-2", "f-mix"}),
        (both, {"f-en-1"}),
    ]:
        for got in (
            store.search_dense("kb", dense, 20, flt),
            store.search_sparse("kb", sparse, 20, flt),
            store.search_hybrid("kb", dense, sparse, 20, flt, prefetch_limit=20),
        ):
            assert got, flt
            assert {p.payload["file_id"] for p in got} <= allowed
    dense_all = store.search_dense("kb", dense, 20, by_kb)
    assert len(dense_all) == sum(1 for p in points if p.payload["kb_id"] == "kb-a")
    assert store.search_dense("kb", dense, 20, SearchFilter(kb_ids=("no-such-kb",))) == []


def test_excluded_files_never_take_a_place_in_any_search(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    dense, sparse = points[0].dense, bm25.encode_query("黑豹队 Panthers 年假 leave 向量")
    excluded = {"f-en-1", "f-zh-1"}
    flt = SearchFilter(exclude_file_ids=tuple(sorted(excluded)))
    kept = sum(1 for p in points if p.payload["file_id"] not in excluded)
    dense_hits = store.search_dense("kb", dense, len(points), flt)
    assert len(dense_hits) == kept  # the limit is filled by the other files, not cut after the fact
    for got in (dense_hits, store.search_sparse("kb", sparse, 20, flt),
                store.search_hybrid("kb", dense, sparse, 20, flt, prefetch_limit=20)):
        assert got and not {p.payload["file_id"] for p in got} & excluded
    both = SearchFilter(kb_ids=("kb-a",), exclude_file_ids=("f-zh-1",))
    assert {p.payload["file_id"] for p in store.search_dense("kb", dense, 20, both)} == {"f-zh-2"}


def _flagged(points: list[VectorPoint], ready_files: set[str]) -> list[VectorPoint]:
    """The points as ingest writes them: ``ready`` 0, except for files already flagged."""
    return [VectorPoint(p.id, p.dense, p.sparse, {**p.payload, READY_KEY: int(p.payload["file_id"] in ready_files)})
            for p in points]


def test_one_batch_answers_as_the_single_searches_do(store: VectorStore) -> None:
    points = corpus_points()
    store.create_collection("kb-x", DIM)
    store.create_collection("kb-y", DIM)
    store.upsert("kb-x", [p for p in points if p.payload["kb_id"] == "kb-a"])
    store.upsert("kb-y", [p for p in points if p.payload["kb_id"] == "kb-b"])
    dense, sparse = points[0].dense, bm25.encode_query("黑豹队 Panthers 年假 leave")
    only = SearchFilter(file_ids=("f-zh-1", "f-en-1"))
    queries = [
        ChannelQuery("kb-x", 4, NO_FILTER, dense=dense), ChannelQuery("kb-x", 4, NO_FILTER, sparse=sparse),
        ChannelQuery("no-such-kb", 4, NO_FILTER, dense=dense),  # missing: [] (no error, no existence call)
        ChannelQuery("kb-y", 4, only, dense=dense), ChannelQuery("kb-y", 4, only, sparse=sparse),
        ChannelQuery("kb-y", 4, NO_FILTER, sparse=bm25.encode_query("the of 的")),  # stopwords only: []
    ]
    got = store.search_batch(queries)
    want = [store.search_dense("kb-x", dense, 4, NO_FILTER), store.search_sparse("kb-x", sparse, 4, NO_FILTER), [],
            store.search_dense("kb-y", dense, 4, only), store.search_sparse("kb-y", sparse, 4, only), []]
    assert [[(p.id, p.payload) for p in r] for r in got] == [[(p.id, p.payload) for p in r] for r in want]
    assert [[p.score for p in r] for r in got] == [pytest.approx([p.score for p in r], rel=1e-6) for r in want]
    assert got[0] and got[1] and got[3] and got[4]
    with pytest.raises(InvalidInput, match="dimensions"):
        store.search_batch([ChannelQuery("kb-x", 4, NO_FILTER, dense=[1.0, 0.0])])


def test_only_ready_points_are_searched_and_flagging_is_per_file(store: VectorStore) -> None:
    points = corpus_points()
    store.create_collection("kb", DIM)
    store.upsert("kb", _flagged(points, {"f-zh-1"}))
    dense, sparse = points[5].dense, bm25.encode_query("黑豹队 Panthers 年假 leave 向量 travel")
    ready = SearchFilter(ready_only=True)

    def seen() -> set[str]:
        found = store.search_batch([ChannelQuery("kb", 20, ready, dense=dense), ChannelQuery("kb", 20, ready, sparse=sparse)])
        return {p.payload["file_id"] for r in found for p in r}

    assert seen() == {"f-zh-1"}
    unready = store.unready_file_ids("kb")
    assert unready == {f: n for f, n in store.file_ids("kb").items() if f != "f-zh-1"}
    store.mark_ready("kb", ["f-en-1", "f-mix", "no-such-file"])
    assert seen() == {"f-zh-1", "f-en-1", "f-mix"}
    assert set(store.unready_file_ids("kb")) == {"f-zh-2", "f-en-2"}
    # the unfiltered searches still see everything (chunk inspector, web search collections)
    assert {p.payload["file_id"] for p in store.search_dense("kb", dense, 20, NO_FILTER)} == set(store.file_ids("kb"))


def test_a_collection_from_before_the_flag_lists_every_file_as_unready(store: VectorStore) -> None:
    points = corpus_points()  # no ``ready`` key at all, as written before the flag existed
    store.create_collection("old", DIM)
    store.upsert("old", points)
    store.ensure_ready_index("old")
    store.ensure_ready_index("old")  # idempotent
    assert store.unready_file_ids("old") == store.file_ids("old")
    assert store.search_dense("old", points[0].dense, 5, SearchFilter(ready_only=True)) == []
    store.mark_ready("old", list(store.file_ids("old")))
    assert store.unready_file_ids("old") == {}
    assert len(store.search_dense("old", points[0].dense, 50, SearchFilter(ready_only=True))) == len(points)
