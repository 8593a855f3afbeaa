"""The same data in both engines gives the same answers (the facade hides which one runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.retrieval import bm25
from core.types import SearchFilter
from core.vectorstore.edge import EdgeStore
from core.vectorstore.server import QdrantServerStore
from tests.vectorstore.conftest import DIM, corpus_points, unit_vectors

QUERIES = ["黑豹队的防守", "Super Bowl Panthers", "年假 annual leave", "报销发票", "BM25 稀疏向量"]


@pytest.fixture
def both(tmp_path: Path):
    edge, client = EdgeStore(tmp_path), QdrantServerStore(path_or_memory=":memory:")
    for store in (edge, client):
        store.create_collection("kb", DIM)
        store.upsert("kb", corpus_points())
    yield edge, client
    edge.close()
    client.close()


def tie_groups(hits: list) -> list[set[str]]:
    """Ids grouped by equal score, best first (RRF scores tie often: rank r in one channel only)."""
    groups: list[tuple[float, set[str]]] = []
    for h in hits:
        if groups and h.score == groups[-1][0]:
            groups[-1][1].add(h.id)
        else:
            groups.append((h.score, {h.id}))
    return [ids for _, ids in groups]


def same(a: list, b: list) -> None:
    """Same ranking up to the order inside ties, which each engine breaks its own way."""
    # the edge engine stores dense vectors as float16 (qdrant-client local mode ignores the datatype)
    assert [p.score for p in a] == pytest.approx([p.score for p in b], abs=2e-3)
    ga, gb = tie_groups(a), tie_groups(b)
    assert ga[:-1] == gb[:-1]  # the last group may be cut by the limit at a different member
    assert [len(g) for g in ga[-1:]] == [len(g) for g in gb[-1:]]
    payloads = {p.id: p.payload for p in b}
    assert all(payloads.get(p.id, p.payload) == p.payload for p in a)


@pytest.mark.parametrize("flt", [SearchFilter(), SearchFilter(kb_ids=("kb-a",)), SearchFilter(file_ids=("f-en-1", "f-mix"))])
def test_engines_agree(both, flt: SearchFilter) -> None:
    edge, client = both
    dense_queries = unit_vectors(len(QUERIES), seed=3)
    for text, dense in zip(QUERIES, dense_queries.tolist()):
        sparse = bm25.encode_query(text)
        same(edge.search_dense("kb", dense, 5, flt), client.search_dense("kb", dense, 5, flt))
        same(edge.search_sparse("kb", sparse, 5, flt), client.search_sparse("kb", sparse, 5, flt))
        same(
            edge.search_hybrid("kb", dense, sparse, 5, flt, prefetch_limit=20),
            client.search_hybrid("kb", dense, sparse, 5, flt, prefetch_limit=20),
        )
    assert edge.file_ids("kb") == client.file_ids("kb")
    assert [p.id for p in edge.scroll_file("kb", "f-zh-1")] == [p.id for p in client.scroll_file("kb", "f-zh-1")]
