"""Deleting a file that is still being indexed: the ingest stops for it, the other files of its
group are indexed, and nothing of the deleted file is left anywhere."""

from __future__ import annotations

import threading

from core.ingest.blobs import sha256_hex
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.fakes.embedding_server import held
from tests.reliability.conftest import leftovers, long_markdown

A = SYSTEM_ACTOR


def test_deleting_a_file_mid_embedding_cancels_it_and_keeps_the_rest_of_its_group(api_engine):
    engine, srv = api_engine
    big = Upload("big.md", long_markdown(40))
    small = Upload("small.md", b"## Parking\n\nVisitors park on level two.")
    gate = held()
    srv.fail_next(gate)  # the first batch of the group waits at the server
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["results"] = engine.ingest(A, "kb", [big, small])
        except BaseException as exc:  # the test reports it below
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    try:
        assert gate.entered.wait(30), "the ingest never reached embedding"
        [processing] = [f for f in engine.list_files(A, "kb") if f.name == "big.md"]
        assert processing.status == "processing"
        [deleted] = engine.delete_files(A, [processing.id])
        assert deleted.status == "deleted", deleted.error
    finally:
        gate.gate.set()
        worker.join(60)
    assert "error" not in outcome, repr(outcome.get("error"))
    by_name = {r.name: r for r in outcome["results"]}
    assert by_name["small.md"].status == "indexed", by_name["small.md"].error
    assert by_name["big.md"].status == "cancelled"
    assert srv.embed_count < 40 // 4  # it stopped at the next batch, not at the end of the file
    assert leftovers(engine, processing.id) == {"points": {}, "parsed": False, "running_jobs": 0}
    assert not engine._blobs.has(sha256_hex(big.data))
    assert [f.name for f in engine.list_files(A, "kb")] == ["small.md"]
    assert engine.jobs(A, active_only=True) == []
    assert engine.doctor(A).healthy
