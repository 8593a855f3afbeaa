"""The doctor's repair runs beside live work: it never takes an upload that is starting for an
orphan, and it rebuilds a file the way its knowledge base chunks files."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from core.ingest.blobs import SMALL_BLOB_BYTES, sha256_hex
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR, ParsedDoc
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md
from tests.fakes.embedding_server import held
from tests.reliability.conftest import long_markdown

A = SYSTEM_ACTOR


def _waiting_for_the_database_in(thread: threading.Thread, function: str) -> bool:
    """Whether ``thread`` is inside ``function`` and waiting to begin a transaction (a read never
    waits there: only a write's BEGIN IMMEDIATE does, while another writer holds the lock)."""
    frame = sys._current_frames().get(thread.ident)
    names = []
    while frame is not None:
        names.append((frame.f_code.co_name, frame.f_code.co_filename))
        frame = frame.f_back
    in_write = any(n == "_on_begin" and f.endswith("core/db/connect.py") for n, f in names)
    return in_write and any(n == function for n, _ in names)


def test_a_repair_during_an_upload_keeps_the_original_it_just_wrote(engine):
    engine.create_kb(A, "kb")
    engine.ingest(A, "kb", [md("handbook.md", HANDBOOK_MD)])  # the knowledge base has its index
    upload = md("policy.md", POLICY_MD)
    results: list = []
    worker = threading.Thread(target=lambda: results.extend(engine.ingest(A, "kb", [upload])))
    # Another writer holds the database (a commit of another session), so the upload stops at
    # its first write, exactly where a slow disk or a busy database would stop it.
    with engine._db.write() as session:
        session.connection()  # BEGIN IMMEDIATE now: the write lock is ours until the block ends
        worker.start()
        deadline = time.monotonic() + 30
        while not _waiting_for_the_database_in(worker, "register_block") and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _waiting_for_the_database_in(worker, "register_block"), "the upload never reached its first write"
        report = engine.doctor(A)  # what a repair now would delete
    worker.join(60)
    assert sha256_hex(upload.data) not in report.orphan_blobs
    [result] = results
    assert result.status == "indexed", result.error
    assert engine.file_original(A, result.file_id)[1] == upload.data
    assert engine.doctor(A).healthy


def test_repair_rebuilds_a_file_with_its_knowledge_base_own_chunking(engine):
    engine.create_kb(A, "kb")
    engine.set_kb_chunking(A, "kb", {"chunk_size": 60, "chunk_overlap": 0})
    [result] = engine.ingest(A, "kb", [md("policy.md", POLICY_MD)])
    assert result.chunks > 5  # small chunks, not the global 500 characters
    kb = engine.get_kb(A, "kb")
    engine._store.delete_file(kb.collection, result.file_id)  # vectors lost behind the database's back
    engine.doctor(A, repair=True)
    assert engine._store.count(kb.collection, file_id=result.file_id) == result.chunks
    assert engine.get_file(A, result.file_id).chunk_count == result.chunks
    assert engine.doctor(A).healthy


def test_a_repair_during_a_reindex_leaves_its_new_collection_alone(api_engine):
    engine, srv = api_engine
    engine.ingest(A, "kb", [Upload("notes.md", long_markdown(12))])
    gate = held()
    srv.fail_next(gate)  # the reindex's first batch waits at the server
    outcome: dict = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("result", engine.reindex(A, "kb")))
    worker.start()
    try:
        assert gate.entered.wait(30), "the reindex never got to embedding"
        report = engine.doctor(A, repair=True)
    finally:
        gate.gate.set()
        worker.join(60)
    assert report.orphan_collections == []
    assert outcome["result"].status == "done", outcome["result"].error
    assert engine.doctor(A).healthy


def test_parsed_text_of_no_file_and_a_dead_writers_temp_file_are_orphans(engine):
    engine.create_kb(A, "kb")
    [kept] = engine.ingest(A, "kb", [md("handbook.md", HANDBOOK_MD)])
    blobs = engine._blobs
    doc = blobs.get_parsed(kept.file_id)
    blobs.put_parsed("f" * 32, doc)  # a file row that is gone: its text is a database row (small)
    long_doc = ParsedDoc.from_dict(doc.to_dict() | {"metadata": {"padding": "x" * (SMALL_BLOB_BYTES + 1)}})
    blobs.put_parsed("e" * 32, long_doc)  # the same, large enough to be a file of its own
    assert (blobs.parsed_dir / f"{'e' * 32}.json").exists() and not (blobs.parsed_dir / f"{'f' * 32}.json").exists()
    folder = blobs.files_dir / "ab"
    folder.mkdir(parents=True, exist_ok=True)
    live = folder / f".{'ab' * 32}.{os.getpid()}.1.tmp"  # being written by this (live) process
    dead = folder / f".{'ab' * 32}.{_dead_pid()}.1.tmp"  # left by a killed write
    live.write_bytes(b"half")
    dead.write_bytes(b"half")
    report = engine.doctor(A)
    assert sorted(report.orphan_parsed) == ["e" * 32, "f" * 32]
    assert report.orphan_blobs == [dead.name]
    engine.doctor(A, repair=True)
    assert blobs.get_parsed("f" * 32) is None and blobs.get_parsed("e" * 32) is None
    assert blobs.get_parsed(kept.file_id) is not None
    assert live.exists() and not dead.exists()
    live.unlink()
    assert engine.doctor(A).healthy


def _dead_pid() -> int:
    """The pid of a process that has ended (a child started and waited for)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid
