"""``delete_points`` (a chunk disabled by hand, core/chunk_edits/): exactly those points go, on both
engines; an id not present changes nothing; no search channel returns a deleted point."""

from __future__ import annotations

from core.retrieval import bm25
from core.types import SearchFilter, VectorPoint
from core.vectorstore.base import VectorStore


def test_delete_points_removes_exactly_those_points(filled: tuple[VectorStore, list[VectorPoint]]) -> None:
    store, points = filled
    gone, kept = points[0], points[1:]
    store.delete_points("kb", [gone.id, "00000000-0000-0000-0000-000000000000"])  # one not present
    assert store.count("kb") == len(kept)
    assert gone.id not in {p.id for p in store.scroll_file("kb", gone.payload["file_id"])}
    words = gone.payload["text"]
    flt = SearchFilter()
    assert gone.id not in {h.id for h in store.search_dense("kb", gone.dense, 50, flt)}
    assert gone.id not in {h.id for h in store.search_sparse("kb", bm25.encode_query(words), 50, flt)}
    store.delete_points("kb", [])  # nothing asked: nothing changes
    assert store.count("kb") == len(kept)
