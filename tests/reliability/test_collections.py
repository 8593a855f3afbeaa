"""A knowledge base's collection is made where it is used: a refused first create, or two first
ingests racing to make it, never leave a knowledge base naming a collection that does not exist."""

from __future__ import annotations

import threading

import pytest

from core.errors import StoreError
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md

KB_CREATE = r"^/collections/ragdesk_kb_[0-9a-f]+_v1$"


def test_a_refused_first_create_is_made_good_by_the_next_ingest(served_store):
    engine, srv = served_store
    engine.create_kb(SYSTEM_ACTOR, "kb")
    srv.refuse_next("PUT", KB_CREATE, status=503)
    with pytest.raises(StoreError):
        engine.ingest(SYSTEM_ACTOR, "kb", [md("a.md", HANDBOOK_MD)])
    [result] = engine.ingest(SYSTEM_ACTOR, "kb", [md("a.md", HANDBOOK_MD)])
    assert result.status == "indexed", result.error
    assert engine.search(SYSTEM_ACTOR, "remote work core hours", ["kb"]).hits
    assert engine.doctor(SYSTEM_ACTOR).healthy


def test_the_doctor_reports_and_repairs_a_knowledge_base_whose_collection_is_missing(served_store):
    engine, srv = served_store
    engine.create_kb(SYSTEM_ACTOR, "kb")
    srv.refuse_next("PUT", KB_CREATE, status=503)
    with pytest.raises(StoreError):
        engine.ingest(SYSTEM_ACTOR, "kb", [md("a.md", HANDBOOK_MD)])
    kb = engine.get_kb(SYSTEM_ACTOR, "kb")
    report = engine.doctor(SYSTEM_ACTOR)
    assert not report.healthy and report.missing_collections == [kb.collection]
    repaired = engine.doctor(SYSTEM_ACTOR, repair=True)
    assert repaired.missing_collections == [kb.collection]
    assert engine.doctor(SYSTEM_ACTOR).healthy
    assert srv.count("GET", rf"^/collections/{kb.collection}/exists$") > 0
    [result] = engine.ingest(SYSTEM_ACTOR, "kb", [md("a.md", HANDBOOK_MD)])
    assert result.status == "indexed", result.error


def test_two_first_ingests_racing_to_create_the_collection_both_index(served_store):
    engine, srv = served_store
    engine.create_kb(SYSTEM_ACTOR, "kb")
    held = srv.hold_next("PUT", KB_CREATE)  # the first ingest's create waits at the server
    results: dict[str, list] = {}
    first = threading.Thread(target=lambda: results.setdefault(
        "first", engine.ingest(SYSTEM_ACTOR, "kb", [md("handbook.md", HANDBOOK_MD)])))
    first.start()
    try:
        assert held.entered.wait(30), "the first ingest never asked to create the collection"
        results["second"] = engine.ingest(SYSTEM_ACTOR, "kb", [md("policy.md", POLICY_MD)])
    finally:
        held.gate.set()
        first.join(60)
    assert [r.status for r in results["second"]] == ["indexed"], results["second"][0].error
    assert [r.status for r in results["first"]] == ["indexed"], results["first"][0].error
    assert {f.status for f in engine.list_files(SYSTEM_ACTOR, "kb")} == {"indexed"}
    assert engine.doctor(SYSTEM_ACTOR).healthy
