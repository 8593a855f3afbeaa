"""Token vectors (late interaction) in both engines: made with the collection, stored per point,
compared by MaxSim in the engine over named candidates only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.errors import InvalidInput
from core.types import VectorPoint
from core.vectorstore.base import VectorStore
from core.vectorstore.edge import EdgeStore
from core.vectorstore.server import QdrantServerStore
from tests.fakes.qdrant_server import fake_qdrant_server
from tests.vectorstore.conftest import DIM, corpus_points

TOKEN_DIM = 8


def token_rows(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, TOKEN_DIM))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def with_tokens(points: list[VectorPoint], skip: int = -1) -> dict[str, np.ndarray]:
    """Give every point but ``skip`` 2-6 token vectors; their rows by point id."""
    rows = {}
    for i, p in enumerate(points):
        if i != skip:
            rows[p.id] = token_rows(2 + i % 5, seed=100 + i)
            p.tokens = rows[p.id].tolist()
    return rows


def maxsim(query: np.ndarray, passage: np.ndarray) -> float:
    return float((query @ passage.T).max(axis=1).sum())


@pytest.fixture
def tokened(store: VectorStore) -> tuple[VectorStore, list[VectorPoint], dict[str, np.ndarray]]:
    points = corpus_points()
    rows = with_tokens(points, skip=3)
    store.create_collection("kb", DIM, token_dimension=TOKEN_DIM)
    store.upsert("kb", points)
    return store, points, rows


def test_a_collection_has_token_vectors_only_when_made_with_them(store: VectorStore) -> None:
    store.create_collection("plain", DIM)
    store.create_collection("tokens", DIM, token_dimension=TOKEN_DIM)
    assert store.token_dimension("plain") == 0 and store.token_dimension("tokens") == TOKEN_DIM
    with pytest.raises(InvalidInput):
        store.create_collection("bad", DIM, token_dimension=-1)


def test_late_scores_are_maxsim_over_the_named_candidates(tokened) -> None:
    store, points, rows = tokened
    query = token_rows(3, seed=1)
    asked = [p.id for p in points[:6]]
    scores = store.late_scores("kb", asked, query.tolist())
    # the point stored without token vectors is left out; nothing outside the candidates comes back
    assert set(scores) == set(asked) - {points[3].id}
    for pid, score in scores.items():
        # 8-bit storage on the engines that use it: within a few thousandths a query token
        assert score == pytest.approx(maxsim(query, rows[pid]), abs=0.01 * len(query))
    assert store.late_scores("kb", [], query.tolist()) == {}


def test_token_vectors_survive_replacing_and_deleting(tokened) -> None:
    store, points, rows = tokened
    query = token_rows(2, seed=2)
    changed = points[0]
    changed.tokens = token_rows(3, seed=999).tolist()
    store.upsert("kb", [changed])
    assert store.late_scores("kb", [changed.id], query.tolist())[changed.id] == pytest.approx(
        maxsim(query, np.asarray(changed.tokens)), abs=0.05)
    store.delete_file("kb", changed.payload["file_id"])
    assert store.late_scores("kb", [changed.id], query.tolist()) == {}


def test_token_vectors_are_refused_where_they_do_not_fit(store: VectorStore) -> None:
    store.create_collection("plain", DIM)
    store.create_collection("tokens", DIM, token_dimension=TOKEN_DIM)
    point = corpus_points()[0]
    point.tokens = token_rows(2, seed=3).tolist()
    with pytest.raises(InvalidInput, match="no token vectors"):
        store.upsert("plain", [point])
    point.tokens = [[0.5] * (TOKEN_DIM + 1)]
    with pytest.raises(InvalidInput, match="token vectors must have"):
        store.upsert("tokens", [point])
    assert store.count("tokens") == 0
    with pytest.raises(InvalidInput, match="Query token vectors"):
        store.late_scores("tokens", [point.id], [[1.0, 0.0]])
    assert store.late_scores("plain", [point.id], [[1.0] * TOKEN_DIM]) == {}  # nothing to compare: nothing


def test_the_embedded_store_remembers_its_token_vectors_when_reopened(tmp_path: Path) -> None:
    points = corpus_points()
    rows = with_tokens(points)
    with EdgeStore(tmp_path / "vectors") as store:
        store.create_collection("kb", DIM, token_dimension=TOKEN_DIM)
        store.upsert("kb", points)
    query = token_rows(2, seed=4)
    with EdgeStore(tmp_path / "vectors") as store:
        assert store.token_dimension("kb") == TOKEN_DIM
        got = store.late_scores("kb", [points[1].id], query.tolist())
    assert got[points[1].id] == pytest.approx(maxsim(query, rows[points[1].id]), abs=0.05)


def test_a_server_gets_token_vectors_in_requests_of_bounded_size() -> None:
    points = corpus_points()
    for i, p in enumerate(points):
        p.tokens = token_rows(600, seed=i).tolist()  # 600 rows each: several points would pass 2048 rows
    with fake_qdrant_server() as srv:
        store = QdrantServerStore(url=srv.url)
        store.create_collection("ragdesk_kb_t", DIM, token_dimension=TOKEN_DIM)
        mark = len(srv.requests)
        store.upsert("ragdesk_kb_t", points)
        upserts = [b for m, path, b in srv.bodies[mark:] if m == "PUT" and path.endswith("/points")]
        assert sum(len(b["points"]) for b in upserts) == len(points)
        assert max(sum(len(p["vector"]["late"]) for p in b["points"]) for b in upserts) <= 2048
        assert len(upserts) >= len(points) * 600 // 2048
        # a second client (another process) learns the token size from the server
        other = QdrantServerStore(url=srv.url)
        assert other.token_dimension("ragdesk_kb_t") == TOKEN_DIM
        store.close()
        other.close()
