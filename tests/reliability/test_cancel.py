"""Cancel takes effect within a fraction of a second: during a long embedding call (its vectors
are then dropped), at each page of another file's parse, in a reindex too; nothing of a
cancelled file stays half-indexed."""

from __future__ import annotations

import threading
import time

from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest.blobs import sha256_hex
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, md
from tests.fakes.embedding_server import Failure, fake_embedding_server, held
from tests.parsers.pdf_maker import Page, make_pdf
from tests.reliability.conftest import leftovers, long_markdown

A = SYSTEM_ACTOR
CHUNKS = 400


def _api_engine(data_dir, srv) -> Engine:
    engine = Engine(RuntimeConfig.from_env(data_dir))
    engine.save_settings(A, {"embedding": {"provider": "openai", "base_url": srv.openai_url, "model": "fake-embed",
                                           "batch_size": 64},
                             "chunking": {"chunk_size": 60, "chunk_overlap": 0}})
    engine.create_kb(A, "kb")
    engine.embedder().dimension  # learnt once, before the test counts requests
    return engine


def _in_background(work) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["result"] = work()
        except BaseException as exc:  # reported by the test
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _cancel_during_a_held_call(engine: Engine, gate, kind: str):
    """Cancel the running job of ``kind`` while its second embedding call is held at the server
    (a slow model: one call of a full batch took 17 s of e5 here); the job row once it ended."""
    assert gate.entered.wait(60), "the work never reached its second embedding call"
    [job] = [j for j in engine.jobs(A, active_only=True) if j.kind == kind]
    engine.cancel_job(A, job.id)
    deadline = time.monotonic() + 20
    while engine.jobs(A, ids=[job.id])[0].state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    return engine.jobs(A, ids=[job.id])[0]


def test_cancel_of_an_ingest_ends_it_during_a_long_embedding_call(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=16) as srv, _api_engine(data_dir, srv) as engine:
        before = srv.embed_count
        gate = held()
        srv.fail_next(Failure(), gate)  # the first call goes through, the second is held
        upload = Upload("big.md", long_markdown(CHUNKS))
        worker, outcome = _in_background(lambda: engine.ingest(A, "kb", [upload]))
        try:
            job = _cancel_during_a_held_call(engine, gate, "ingest")
            assert job.state == "cancelled"  # ended while the call was still running
            assert leftovers(engine, job.file_id) == {"points": {}, "parsed": False, "running_jobs": 0}
        finally:
            gate.gate.set()
            worker.join(60)
        assert "error" not in outcome, repr(outcome.get("error"))
        [result] = outcome["result"]
        assert result.status == "cancelled"
        assert srv.embed_count - before == 2  # of the 7 calls the file needs: stopped at that step
        assert leftovers(engine, result.file_id) == {"points": {}, "parsed": False, "running_jobs": 0}  # late vectors dropped
        report = engine.doctor(A)
        assert report.healthy and report.retry_originals == [sha256_hex(upload.data)]  # kept for Retry


def test_cancel_of_a_reindex_ends_it_during_a_long_embedding_call(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=16) as srv, _api_engine(data_dir, srv) as engine:
        [indexed] = engine.ingest(A, "kb", [Upload("big.md", long_markdown(CHUNKS))])
        serving = engine.get_kb(A, "kb").collection
        before = srv.embed_count
        gate = held()
        srv.fail_next(Failure(), gate)
        worker, outcome = _in_background(lambda: engine.reindex(A, "kb"))
        try:
            assert _cancel_during_a_held_call(engine, gate, "reindex").state == "cancelled"
        finally:
            gate.gate.set()
            worker.join(60)
        assert "error" not in outcome, repr(outcome.get("error"))
        assert outcome["result"].status == "cancelled"
        assert srv.embed_count - before == 2
        assert engine._store.list_collections() == [serving]  # the new index is gone, the old one serves
        assert engine._store.count(serving, file_id=indexed.file_id) == indexed.chunks
        assert engine.doctor(A).healthy


def test_a_cancelled_file_waiting_for_its_group_ends_while_the_next_file_is_parsed(engine):
    engine.create_kb(A, "kb")
    scan = make_pdf([Page().text(72, 72, f"Page {i} lists the parking rules for garage {i}.") for i in range(12)])
    states: list[tuple[int, str]] = []

    def progress(name: str, done: int, total: int, message: str) -> None:
        if name != "garages.pdf" or not message.startswith("page"):
            return
        [first] = [f for f in engine.list_files(A, "kb") if f.name == "handbook.md"]
        [job] = [j for j in engine.jobs(A) if j.file_id == first.id]
        if done == 1:
            engine.cancel_job(A, job.id)  # the handbook waits for the group's embedding meanwhile
        states.append((done, job.state))

    results = engine.ingest(A, "kb", [md("handbook.md", HANDBOOK_MD), Upload("garages.pdf", scan)], progress)
    assert [(r.name, r.status) for r in results] == [("handbook.md", "cancelled"), ("garages.pdf", "indexed")]
    # it ended at the next page of the PDF, not once the whole PDF was read
    assert states[-1] == (11, "cancelled") and (2, "cancelled") in states
    assert engine.doctor(A).healthy


def test_a_cancelled_file_waiting_for_its_parse_ends_while_the_file_before_it_is_parsed(engine):
    # The three are registered in one commit before the PDF is parsed; the notes, cancelled then,
    # end at the PDF's next page, keep their original for Retry and never reach the embedder.
    engine.create_kb(A, "kb")
    scan = make_pdf([Page().text(72, 72, f"Page {i} lists the parking rules for garage {i}.") for i in range(12)])
    notes = md("notes.md", "# Notes\n\nThe canteen opens at eight.")
    states: list[tuple[int, str]] = []

    def progress(name: str, done: int, total: int, message: str) -> None:
        if name != "garages.pdf" or not message.startswith("page"):
            return
        [waiting] = [f for f in engine.list_files(A, "kb") if f.name == "notes.md"]
        [job] = [j for j in engine.jobs(A) if j.file_id == waiting.id]
        if done == 1:
            engine.cancel_job(A, job.id)
        states.append((done, job.state))

    uploads = [Upload("garages.pdf", scan), notes, md("handbook.md", HANDBOOK_MD)]
    results = engine.ingest(A, "kb", uploads, progress)
    assert [(r.name, r.status) for r in results] == [("garages.pdf", "indexed"), ("notes.md", "cancelled"),
                                                      ("handbook.md", "indexed")]
    assert (2, "cancelled") in states  # ended at the PDF's next page, not when its turn came
    [cancelled] = [r for r in results if r.name == "notes.md"]
    assert engine._parts.blobs.get_parsed(cancelled.file_id) is None
    assert engine._store.count(engine.get_kb(A, "kb").collection, file_id=cancelled.file_id) == 0
    assert engine._parts.blobs.has(sha256_hex(notes.data))  # Retry can send it again
    assert engine.doctor(A).healthy
