"""Web-search collections: naming, overwrite, expiry, and the doctor removing stale ones."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest

from core.db.models import WebSearchCollection, utcnow
from core.types import SYSTEM_ACTOR
from core.vectorstore.base import collection_prefix
from core.websearch.collections import collection_name, is_web_collection, remove_expired
from tests.cli.test_cli import as_json, run_cli
from tests.websearch.conftest import configure, open_guard_for_test_host
from tests.websearch.fake_engines import html_page

Q = "Which river runs through Vellmar?"


def test_the_name_is_the_reference_one_with_our_prefix():
    queries = ["vellmar river", "Vellmar 河流"]
    expected = ("web-search-" + hashlib.sha256("vellmar river-Vellmar 河流".encode()).hexdigest())[:63]
    assert collection_name(queries) == collection_prefix() + expected
    assert len(expected) == 63 and is_web_collection(collection_name(queries))
    assert collection_name(["a"]) != collection_name(["b"]) and not is_web_collection(collection_prefix() + "kb_x_v1")


def _search(engine, fake, body: str):
    fake.page("/pages/vellmar", html_page("Vellmar", body))
    fake.results(Q, [(fake.url("/pages/vellmar"), "Vellmar", "")])
    return engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)


def _web_collections(engine) -> list[str]:
    return [c for c in engine._store.list_collections() if is_web_collection(c)]


def test_the_same_queries_overwrite_their_collection(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search=fake.settings("searxng"))
    first = _search(engine, fake, "The river Fulda runs through Vellmar.\n" + "Old text about bridges. " * 40)
    second = _search(engine, fake, "The river Fulda runs through Vellmar.")
    assert _web_collections(engine) == [collection_name([Q])]
    assert engine._store.count(collection_name([Q])) == 1  # only the second version's single chunk
    assert "Fulda" in first.text and "Fulda" in second.text


def test_expired_collections_are_removed_by_the_doctor_and_on_the_next_search(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search=fake.settings("searxng"))
    _search(engine, fake, "The river Fulda runs through Vellmar.")
    old = collection_name([Q])
    report = engine.doctor(SYSTEM_ACTOR)
    assert report.healthy and report.expired_web_collections == [] and old in _web_collections(engine)
    with engine._db.write() as s:  # a day and a bit later
        row = s.get(WebSearchCollection, old)
        row.created_at = utcnow() - timedelta(hours=25)
        s.add(row)
    report = engine.doctor(SYSTEM_ACTOR)
    assert report.expired_web_collections == [old] and report.healthy
    assert _web_collections(engine) == []
    with engine._db.read() as s:
        assert s.get(WebSearchCollection, old) is None


def test_a_shorter_ttl_expires_sooner_and_a_fresh_search_renews(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search={**fake.settings("searxng"), "web_search_collection_ttl_hours": 1})
    _search(engine, fake, "The river Fulda runs through Vellmar.")
    name = collection_name([Q])
    assert remove_expired(engine._store, engine._db, 1, now=utcnow() + timedelta(minutes=59)) == []
    assert remove_expired(engine._store, engine._db, 1, now=utcnow() + timedelta(minutes=61)) == [name]
    assert _web_collections(engine) == []


def test_an_unrecorded_web_collection_is_an_orphan(engine):
    stray = collection_prefix() + "web-search-0123456789abcdef"
    engine._store.create_collection(stray, engine.embedder().dimension)
    report = engine.doctor(SYSTEM_ACTOR)
    assert stray in report.orphan_collections and not report.healthy
    engine.doctor(SYSTEM_ACTOR, repair=True)
    assert stray not in engine._store.list_collections()


@pytest.mark.slow  # a real CLI process
def test_python_m_core_doctor_removes_stale_web_collections(data_dir):
    from tests.engine.conftest import make_engine

    engine = make_engine(data_dir)
    name = collection_name(["stale query"])
    engine._store.create_collection(name, engine.embedder().dimension)
    with engine._db.write() as s:
        s.add(WebSearchCollection(name=name, queries=["stale query"], created_at=utcnow() - timedelta(days=3)))
    engine.close()
    report = as_json(run_cli(data_dir, "--json", "doctor"))
    assert report["expired_web_collections"] == [name] and report["healthy"] is True


def test_only_the_best_keyword_matches_are_embedded_and_the_deep_answer_is_still_found(engine, fake):
    open_guard_for_test_host(engine)
    configure(engine, web_search={**fake.settings("searxng"), "web_search_max_indexed_chunks": 3},
              chunking={"chunk_size": 200, "chunk_overlap": 0})
    filler = "\n".join(f"Section {i}: the town archive keeps maps, letters and tax rolls of year {1800 + i}." for i in range(60))
    body = filler + "\nThe river Fulda runs through Vellmar and joins the Weser further north.\n" + filler
    answer = _search(engine, fake, body)
    assert engine._store.count(collection_name([Q])) == 3  # of dozens of chunks, three were embedded
    assert "Fulda" in answer.text and answer.citations[0].location == fake.url("/pages/vellmar")
