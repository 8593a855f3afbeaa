"""Both engines behind one fixture, and a small bilingual corpus made here.

Dense vectors are seeded random unit vectors; sparse vectors come from the real BM25 encoder
over real sentences, so sparse ranking exercises the engine's IDF on real term statistics.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from core.retrieval import bm25
from core.types import SparseVector, VectorPoint
from core.vectorstore.base import VectorStore
from core.vectorstore.edge import EdgeStore
from core.vectorstore.server import QdrantServerStore

DIM = 16

# (file_id, kb_id, text): two knowledge bases, Chinese and English, several chunks per file.
CORPUS: list[tuple[str, str, str]] = [
    ("f-zh-1", "kb-a", "黑豹队的防守只丢了308分，在联赛中排名第六。"),
    ("f-zh-1", "kb-a", "职业碗防守截锋卡万·肖特以11次擒杀领先全队。"),
    ("f-zh-1", "kb-a", "野马队在第五十届超级碗中击败了黑豹队。"),
    ("f-zh-2", "kb-a", "员工报销差旅费用需要在出差结束后三十天内提交发票。"),
    ("f-zh-2", "kb-a", "年假天数按照员工的工作年限计算，满十年可享受十五天年假。"),
    ("f-en-1", "kb-b", "The Panthers defense gave up just 308 points, ranking sixth in the league."),
    ("f-en-1", "kb-b", "The Denver Broncos defeated the Carolina Panthers to win Super Bowl 50."),
    ("f-en-1", "kb-b", "Kawann Short led the team with eleven sacks and three forced fumbles."),
    ("f-en-2", "kb-b", "Travel expenses must be claimed within thirty days with the original receipts."),
    ("f-en-2", "kb-b", "Annual leave grows with years of service: fifteen days after ten years."),
    ("f-mix", "kb-b", "Qdrant 的混合检索结合 dense 向量与 BM25 稀疏向量。"),
]


def point_uuid(file_id: str, index: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"test/{file_id}/{index}"))


def unit_vectors(n: int, seed: int = 7) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, DIM))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def corpus_points(corpus: list[tuple[str, str, str]] = CORPUS) -> list[VectorPoint]:
    dense = unit_vectors(len(corpus))
    avg = sum(len(bm25.tokenize(t)) for _, _, t in corpus) / len(corpus)
    points = []
    per_file: dict[str, int] = {}
    for row, (file_id, kb_id, text) in enumerate(corpus):
        index = per_file.get(file_id, 0)
        per_file[file_id] = index + 1
        points.append(
            VectorPoint(
                id=point_uuid(file_id, index),
                dense=dense[row].tolist(),
                sparse=bm25.encode_document(text, avg),
                payload={"file_id": file_id, "kb_id": kb_id, "chunk_index": index, "text": text},
            )
        )
    return points


def expected_bm25(points: list[VectorPoint], query: SparseVector) -> list[tuple[str, float]]:
    """BM25 computed here: document weights times the IDF Qdrant applies, best first."""
    n = len(points)
    df: dict[int, int] = {}
    for p in points:
        for i in p.sparse.indices:
            df[i] = df.get(i, 0) + 1
    scored = []
    for p in points:
        weights = dict(zip(p.sparse.indices, p.sparse.values))
        score = sum(
            q * weights[t] * math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            for t, q in zip(query.indices, query.values)
            if t in weights
        )
        if score > 0:
            scored.append((p.id, score))
    return sorted(scored, key=lambda s: -s[1])


def expected_cosine(points: list[VectorPoint], query: list[float]) -> list[tuple[str, float]]:
    q = np.asarray(query) / np.linalg.norm(query)
    scored = [(p.id, float(np.dot(p.dense, q) / np.linalg.norm(p.dense))) for p in points]
    return sorted(scored, key=lambda s: -s[1])


def make_store(engine: str, root: Path) -> VectorStore:
    if engine == "edge":
        return EdgeStore(root / "vectors")
    return QdrantServerStore(path_or_memory=":memory:")


@pytest.fixture(params=["edge", "qdrant-client"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    s = make_store(request.param, tmp_path)
    yield s
    s.close()


@pytest.fixture
def filled(store: VectorStore) -> tuple[VectorStore, list[VectorPoint]]:
    points = corpus_points()
    store.create_collection("kb", DIM)
    store.upsert("kb", points)
    return store, points
