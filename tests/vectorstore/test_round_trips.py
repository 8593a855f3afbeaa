"""What one query costs against a Qdrant server, counted at the protocol level (the fake server
records every request): one search request per collection searched, every channel in it, no
existence check, and a filter that does not grow with the number of failed files."""

from __future__ import annotations

import json

import pytest

from core.types import SYSTEM_ACTOR as A
from core.vectorstore.server import QdrantServerStore
from tests.engine.conftest import make_engine, md
from tests.fakes.qdrant_server import fake_qdrant_server
from tests.retrieval.unfinished import write_unfinished

BATCH = r"/points/query/batch$"


@pytest.fixture
def served(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with fake_qdrant_server() as srv:
        monkeypatch.setenv("QDRANT_URL", srv.url)
        engine = make_engine(data_dir)
        yield engine, srv
        engine.close()


def _kbs(engine, n: int) -> list[str]:
    names = [f"kb{i}" for i in range(n)]
    for i, name in enumerate(names):
        engine.create_kb(A, name)
        [r] = engine.ingest(A, name, [md(f"{name}.md", f"# Part {i}\n\nPasswords rotate every {i + 2} days here.")])
        assert r.status == "indexed", r
    return names


def _searched(srv, engine, query: str, kbs: list[str]) -> tuple[list, list]:
    mark = len(srv.requests)
    hits = engine.search(A, query, kbs, min_score=0).hits
    return hits, srv.since(mark)


@pytest.mark.parametrize("n", [1, 3])
def test_a_query_sends_one_request_per_collection_with_both_channels(served, n: int) -> None:
    engine, srv = served
    kbs = _kbs(engine, n)
    hits, made = _searched(srv, engine, "password rotation days", kbs)
    assert {h.kb_id for h in hits} == {engine.get_kb(A, k).id for k in kbs}  # every knowledge base answered
    assert [m for m, _ in made] == ["POST"] * n and all(p.endswith("/points/query/batch") for _, p in made), made
    bodies = [b for m, p, b in srv.bodies[-n:]]
    # dense, BM25 on the words as typed and BM25 on their Chinese translation, in the one request
    assert all([s["using"] for s in b["searches"]] == ["dense", "bm25", "bm25"] for b in bodies), bodies
    assert all(b["searches"][1]["query"] != b["searches"][2]["query"] for b in bodies)


def test_a_new_process_checks_each_collection_once_then_only_searches(served, data_dir) -> None:
    engine, srv = served
    kbs = _kbs(engine, 2)
    engine.close()
    with make_engine(data_dir) as again:  # a fresh process knows no collection yet
        _searched(srv, again, "password rotation", kbs)  # first query: each collection looked up once
        hits, made = _searched(srv, again, "password rotation", kbs)
        assert hits and len(made) == 2 and all(p.endswith("/points/query/batch") for _, p in made), made
        assert not [p for _, p in made if p.endswith("/exists")]


def test_the_filter_does_not_grow_with_failed_files(served) -> None:
    engine, srv = served
    [kb] = _kbs(engine, 1)

    def sent_filter() -> str:
        _, made = _searched(srv, engine, "password rotation", [kb])
        assert len(made) == 1
        return json.dumps([s["filter"] for s in srv.bodies[-1][2]["searches"]], sort_keys=True)

    before = sent_filter()
    # twenty failed files whose points a failing delete left behind, and one still processing
    failed = [write_unfinished(engine, kb, f"bad{i}.md", "Passwords rotate every day.", status="failed")
              for i in range(20)]
    busy = write_unfinished(engine, kb, "busy.md", "Passwords rotate every hour.")
    assert sent_filter() == before
    assert "ready" in before and not any(f in before for f in failed + [busy])
    hits = engine.search(A, "password rotation", [kb], min_score=0).hits
    assert hits and not {h.file_id for h in hits} & set(failed + [busy])


def test_a_collection_dropped_by_another_process_is_forgotten_not_an_error(served) -> None:
    engine, srv = served
    kbs = _kbs(engine, 2)
    gone = engine.get_kb(A, kbs[0]).collection
    other = QdrantServerStore(url=srv.url)  # another process, sharing the server
    other.drop_collection(gone)
    other.close()
    hits = engine.search(A, "password rotation", kbs, min_score=0).hits
    assert {h.kb_id for h in hits} == {engine.get_kb(A, kbs[1]).id}
    assert not engine._store.collection_exists(gone)
