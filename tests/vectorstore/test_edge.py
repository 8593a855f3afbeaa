"""What only the embedded engine has: files on disk, the one-process lock, many threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from core.errors import StoreBusy, StoreError
from core.retrieval import bm25
from core.types import SearchFilter
from core.vectorstore.edge import EdgeStore
from core.vectorstore.factory import open_store
from tests.conftest import REPO_ROOT
from tests.vectorstore.conftest import DIM, corpus_points

# Opens the store in another process and prints what happened.
_OPEN_ELSEWHERE = """
import sys
from pathlib import Path
from core.errors import StoreBusy, StoreError
from core.vectorstore.edge import EdgeStore
try:
    store = EdgeStore(Path(sys.argv[1]), wait_seconds=float(sys.argv[2]))
except StoreBusy as exc:
    print("BUSY", exc)
else:
    print("OPEN", store.count("kb"))
    store.close()
"""


def open_in_other_process(root: Path, wait_seconds: float = 0.0) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _OPEN_ELSEWHERE, str(root), str(wait_seconds)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_reopening_sees_persisted_data(tmp_path: Path) -> None:
    points = corpus_points()
    with EdgeStore(tmp_path) as store:
        store.create_collection("kb", DIM)
        store.upsert("kb", points)
        store.delete_file("kb", "f-zh-2")
    with EdgeStore(tmp_path) as store:
        assert store.list_collections() == ["kb"]
        assert store.dimension("kb") == DIM
        assert store.count("kb") == len(points) - 2
        hits = store.search_sparse("kb", bm25.encode_query("黑豹队"), 1, SearchFilter())
        assert hits[0].payload["file_id"] == "f-zh-1"


_WRITE_AND_DIE = """
import os, sys
from pathlib import Path
from core.vectorstore.edge import EdgeStore
from tests.vectorstore.conftest import DIM, corpus_points
store = EdgeStore(Path(sys.argv[1]))
store.create_collection("kb", DIM)
store.upsert("kb", corpus_points())
store.delete_file("kb", "f-en-2")
os._exit(0)  # like a kill: no flush, no close
"""


def test_updates_survive_a_killed_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WRITE_AND_DIE, str(tmp_path)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    with EdgeStore(tmp_path) as store:  # the dead process's lock went with it
        assert store.count("kb") == len(corpus_points()) - 2
        assert "f-en-2" not in store.file_ids("kb")


def test_optimize_keeps_data_and_search(tmp_path: Path) -> None:
    points = corpus_points()
    with EdgeStore(tmp_path) as store:
        store.create_collection("kb", DIM)
        store.upsert("kb", points)
        before = store.search_dense("kb", points[4].dense, 3, SearchFilter())
        assert isinstance(store.optimize("kb"), bool)
        after = store.search_dense("kb", points[4].dense, 3, SearchFilter())
        assert [p.id for p in after] == [p.id for p in before] and after[0].id == points[4].id
        assert store.count("kb") == len(points)


def test_second_process_gets_store_busy_naming_the_holder(tmp_path: Path) -> None:
    with EdgeStore(tmp_path) as store:
        store.create_collection("kb", DIM)
        store.upsert("kb", corpus_points())
        said = open_in_other_process(tmp_path)
        assert said.startswith("BUSY")
        assert f"pid {os.getpid()}" in said
        with pytest.raises(StoreBusy, match=str(os.getpid())):
            EdgeStore(tmp_path)  # a second opener in this process is refused too
    # released on close: the other process now opens it and sees the data
    assert open_in_other_process(tmp_path) == f"OPEN {len(corpus_points())}"


def test_waiting_opener_gets_the_store_once_released(tmp_path: Path) -> None:
    store = EdgeStore(tmp_path)
    store.create_collection("kb", DIM)
    timer = threading.Timer(1.0, store.close)
    timer.start()
    try:
        assert open_in_other_process(tmp_path, wait_seconds=60) == "OPEN 0"
    finally:
        timer.join()


def test_many_threads_share_one_store(tmp_path: Path) -> None:
    points = corpus_points()
    errors: list[BaseException] = []
    with EdgeStore(tmp_path) as store:
        store.create_collection("kb", DIM)
        store.create_collection("kb-new", DIM)
        store.upsert("kb", points)

        def search() -> None:
            try:
                for _ in range(30):
                    hits = store.search_hybrid(
                        "kb", points[2].dense, bm25.encode_query("野马队"), 3, SearchFilter(), prefetch_limit=10
                    )
                    assert hits[0].id == points[2].id
            except BaseException as exc:  # collected and re-raised by the test below
                errors.append(exc)

        def write() -> None:
            try:
                for _ in range(10):
                    store.upsert("kb-new", points)
                    store.delete_file("kb-new", "f-en-1")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=search) for _ in range(4)] + [threading.Thread(target=write)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert store.count("kb-new") == len(points) - 3


def test_drop_removes_files_and_leftovers_are_swept(tmp_path: Path) -> None:
    with EdgeStore(tmp_path) as store:
        store.create_collection("kb", DIM)
        store.upsert("kb", corpus_points())
        store.drop_collection("kb")
        assert not (tmp_path / "collections" / "kb").exists()
    half_made = tmp_path / "collections" / ".new-kb2-deadbeef"
    half_made.mkdir()
    with EdgeStore(tmp_path) as store:
        assert store.list_collections() == []
        assert not half_made.exists()


def test_factory_picks_edge_without_url(tmp_path: Path) -> None:
    store = open_store(tmp_path, None, None)
    try:
        assert isinstance(store, EdgeStore)
        assert (tmp_path / "vectors" / ".lock").read_text().strip() == str(os.getpid())
    finally:
        store.close()


def test_unusable_folder_is_a_store_error_and_frees_the_lock(tmp_path: Path) -> None:
    (tmp_path / "collections").write_text("not a folder")
    with pytest.raises(StoreError, match="not usable"):
        EdgeStore(tmp_path)
    (tmp_path / "collections").unlink()
    with EdgeStore(tmp_path) as store:  # the failed open did not keep the lock
        assert store.list_collections() == []


def test_new_collections_are_built_with_the_dense_graph(tmp_path: Path) -> None:
    # m 32 / ef_construct 256 is what keeps recall@10 near 0.99 at a million chunks
    # (docs/vectorstore.md); the default graph gave 0.921 there.
    from core.vectorstore._common import HNSW_EF_CONSTRUCT, HNSW_M

    with EdgeStore(tmp_path) as store:
        store.create_collection("kb", DIM)
    [config_file] = tmp_path.rglob("edge_config.json")
    graph = json.loads(config_file.read_text())["hnsw_config"]
    assert (graph["m"], graph["ef_construct"]) == (HNSW_M, HNSW_EF_CONSTRUCT) == (32, 256)


def test_an_index_build_keeps_dense_hits_and_their_scores(tmp_path: Path) -> None:
    # Enough 384-d vectors that a segment passes the full-scan threshold, so optimize really
    # builds the graph: what `kb index` runs. Strict mode's threshold relies on scores not moving.
    import uuid

    import numpy as np

    from core.types import SparseVector, VectorPoint

    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((16_000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = [(vectors[i] * 0.8 + vectors[i + 1] * 0.6) for i in range(0, 50, 5)]
    queries = [(q / np.linalg.norm(q)).tolist() for q in queries]
    with EdgeStore(tmp_path) as store:
        store.create_collection("kb", 384)
        for start in range(0, len(vectors), 2000):
            store.upsert("kb", [VectorPoint(id=str(uuid.UUID(int=i + 1)), dense=vectors[i].tolist(),
                                            sparse=SparseVector([1], [1.0]),
                                            payload={"file_id": f"f{i // 100}", "kb_id": "k", "chunk_index": i % 100,
                                                     "text": "t"})
                                for i in range(start, start + 2000)])
        before = [store.search_dense("kb", q, 10, SearchFilter()) for q in queries]
        assert store.optimize("kb") is True  # the graph was built
        after = [store.search_dense("kb", q, 10, SearchFilter()) for q in queries]
        assert [[(p.id, round(p.score, 5)) for p in hits] for hits in after] == \
               [[(p.id, round(p.score, 5)) for p in hits] for hits in before]
        assert store.count("kb") == len(vectors)
