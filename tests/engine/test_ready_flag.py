"""The ``ready`` flag on the embedded engine: what a crash between a file's commit and its flag
leaves, collections written before the flag existed, the doctor, and strict mode."""

from __future__ import annotations

from core.db.models import FileRecord
from core.ingest.pipeline import point_id
from core.retrieval import bm25
from core.types import SYSTEM_ACTOR as A
from core.types import VectorPoint
from tests.answering.conftest import configure, engine, server, use_openai  # noqa: F401 (fixtures)
from tests.engine.conftest import make_engine, md
from tests.fakes import text
from tests.retrieval.unfinished import write_unfinished

FACT = "The office aquarium holds forty-two goldfish and one snail."
QUESTION = "How many goldfish are in the office aquarium?"


def _found(engine, query: str, kb: str) -> set[str]:
    return {h.file_id for h in engine.search(A, query, [kb], min_score=0).hits}


def test_a_file_committed_but_not_flagged_is_hidden_then_flagged_at_the_next_start(engine, data_dir):
    # what a kill right after the indexed commit leaves: the row says indexed, no point is flagged
    hidden = write_unfinished(engine, "policy", "fish.md", FACT, status="indexed")
    assert hidden not in _found(engine, "aquarium goldfish snail", "policy")
    report = engine.doctor(A)
    assert report.unready_files == [hidden] and not report.healthy
    engine.close()
    with make_engine(data_dir) as again:
        assert hidden in _found(again, "aquarium goldfish snail", "policy")
        assert again.doctor(A).healthy


def test_the_doctor_repair_flags_what_it_reports(engine):
    hidden = write_unfinished(engine, "policy", "fish.md", FACT, status="indexed")
    assert engine.doctor(A, repair=True).unready_files == [hidden]
    assert hidden in _found(engine, "aquarium goldfish snail", "policy")
    assert engine.doctor(A).healthy


def test_a_collection_from_before_the_flag_keeps_answering_after_the_upgrade(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with make_engine(data_dir) as engine:
        engine.create_kb(A, "old")
        [seed] = engine.ingest(A, "old", [md("seed.md", "# Seed\n\nA seed document about nothing much.")])
        kb = engine.get_kb(A, "old")
        rows = {}
        for name, status in (("fish.md", "indexed"), ("broken.md", "failed")):
            rec = FileRecord(sha256=f"old-{name}", name=name, owner_id=A.user_id, kb_id=kb.id, status=status,
                             collection=kb.collection, chunk_count=1)
            with engine._db.write() as s:
                s.add(rec)
            rows[name] = rec.id
            # the payload an earlier release wrote: no ``ready`` key
            engine._store.upsert(kb.collection, [VectorPoint(
                id=point_id(rec.id, 0), dense=[float(x) for x in engine.embedder().embed_documents([FACT])[0]],
                sparse=bm25.encode_document(FACT),
                payload={"file_id": rec.id, "kb_id": kb.id, "chunk_index": 0, "text": FACT, "heading_path": [],
                         "source_name": name})])
        assert rows["fish.md"] not in _found(engine, "aquarium goldfish", "old")  # unflagged: not seen
    with make_engine(data_dir) as engine:  # the first start after the upgrade migrates
        found = _found(engine, "aquarium goldfish", "old")
        assert rows["fish.md"] in found and rows["broken.md"] not in found
        assert set(engine._store.unready_file_ids(kb.collection)) == {rows["broken.md"]}
        assert seed.file_id in _found(engine, "seed document", "old")


def test_strict_mode_never_answers_from_a_file_that_is_not_ready(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    file_id = write_unfinished(engine, "policy", "fish.md", FACT)  # mid-ingest: processing, points written
    answer = engine.ask(A, QUESTION, temporary=True)
    assert (answer.hit, answer.llm_called) == (False, False) and server.request_count == 0
    with engine._db.write() as s:  # its ingest commits and flags it
        s.get(FileRecord, file_id).status = "indexed"
    engine._store.mark_ready(engine.get_kb(A, "policy").collection, [file_id])
    server.add(text("Forty-two [1]"))
    answer = engine.ask(A, QUESTION, temporary=True)
    assert answer.hit and file_id in {c.file_id for c in answer.citations}


def test_the_row_records_the_flag_so_an_ordinary_start_has_nothing_to_flag(engine, data_dir):
    from core.ingest.ready import reconcile

    engine.create_kb(A, "plain")
    [result] = engine.ingest(A, "plain", [md("fish.md", f"# Fish\n\n{FACT}")])
    with engine._db.read() as s:
        assert s.get(FileRecord, result.file_id).searchable is True
    assert reconcile(engine._store, engine._db) == {}  # nothing to flag: no collection opened for it
    with engine._db.write() as s:  # a row from before the flag: empty, its points flagged on the next start
        rec = s.get(FileRecord, result.file_id)
        rec.searchable = None
        s.add(rec)
    kb = engine.get_kb(A, "plain")
    assert reconcile(engine._store, engine._db) == {kb.collection: [result.file_id]}
    with engine._db.read() as s:
        assert s.get(FileRecord, result.file_id).searchable is True


def test_every_group_of_a_large_batch_is_recorded_searchable(engine):
    """A group's flags are recorded with the next group's commit, the last group's after it: a
    batch of several groups leaves no row that the next start would have to flag again."""
    from core.ingest.pipeline import GROUP_FILES
    from core.ingest.ready import reconcile

    engine.create_kb(A, "many")
    uploads = [md(f"note{i}.md", f"# Note {i}\n\nShelf {i} holds {i * 7} blue folders.") for i in range(2 * GROUP_FILES + 5)]
    results = engine.ingest(A, "many", uploads)
    assert {r.status for r in results} == {"indexed"} and len(results) == len(uploads)
    with engine._db.read() as s:
        flags = [s.get(FileRecord, r.file_id).searchable for r in results]
    assert flags == [True] * len(results)
    assert reconcile(engine._store, engine._db) == {}
    assert not engine._store.unready_file_ids(engine.get_kb(A, "many").collection)
