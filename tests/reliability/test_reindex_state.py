"""Reindex leaves no state behind: a killed reindex's new collection is gone when the engine
opens again, and the switch never strands a file in the collection it is about to drop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest import reindex as reindex_mod
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md
from tests.fakes.embedding_server import Failure, fake_embedding_server, held
from tests.reliability.conftest import long_markdown

A = SYSTEM_ACTOR
REPO = Path(__file__).resolve().parents[2]


def test_a_killed_reindex_leaves_no_collection_behind(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with fake_embedding_server(dimension=16) as srv:
        with Engine(RuntimeConfig.from_env(data_dir)) as engine:
            engine.save_settings(A, {"embedding": {"provider": "openai", "base_url": srv.openai_url,
                                                   "model": "fake-embed", "batch_size": 4},
                                     "chunking": {"chunk_size": 60, "chunk_overlap": 0}})
            engine.create_kb(A, "kb")
            [indexed] = engine.ingest(A, "kb", [Upload("notes.md", long_markdown(20))])
            serving = engine.get_kb(A, "kb").collection
        gate = held()
        # the new process learns the model's dimension with one request; its first batch then waits
        srv.fail_next(Failure(), gate)
        script = textwrap.dedent(f"""
            from core.config import RuntimeConfig
            from core.engine import Engine
            from core.types import SYSTEM_ACTOR
            Engine(RuntimeConfig.from_env({str(data_dir)!r})).reindex(SYSTEM_ACTOR, "kb")
        """)
        proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            assert gate.entered.wait(60), "the reindex never got to embedding"
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
            gate.gate.set()
        with Engine(RuntimeConfig.from_env(data_dir)) as engine:
            assert engine._store.list_collections() == [serving]  # the half-built new index is gone
            assert engine.get_kb(A, "kb").collection == serving
            assert engine.jobs(A, active_only=True) == []
            assert engine.doctor(A).healthy
            assert engine.search(A, "Part 7 is about topic 7", ["kb"]).hits[0].file_id == indexed.file_id


def test_the_switch_waits_for_a_file_indexed_after_the_last_catch_up(engine):
    engine.create_kb(A, "kb")
    [first] = engine.ingest(A, "kb", [md("handbook.md", HANDBOOK_MD)])
    kb = engine.get_kb(A, "kb")
    new = reindex_mod.kb_collection_name(kb.id, kb.collection_version + 1)
    engine._store.create_collection(new, kb.dimension)  # the new index, caught up with the first file...
    # ...and a second file indexed into the old one after that catch-up read
    [late] = engine.ingest(A, "kb", [md("policy.md", POLICY_MD)])
    snap = engine._snapshot()
    old = reindex_mod.switch_when_caught_up(engine._parts, kb.id, new, kb.collection_version + 1, snap.embedder,
                                            snap.settings, {first.file_id: first.chunks})
    assert old is None  # not switched: the late file is caught up first
    kb = engine.get_kb(A, "kb")
    assert {f.collection for f in engine.list_files(A, "kb")} == {kb.collection}


def test_a_reindex_with_files_arriving_switches_with_every_file(engine):
    engine.create_kb(A, "kb")
    engine.ingest(A, "kb", [md("handbook.md", HANDBOOK_MD), md("policy.md", POLICY_MD)])
    result = engine.reindex(A, "kb")
    assert result.status == "done" and result.files == 2
    kb = engine.get_kb(A, "kb")
    assert {f.collection for f in engine.list_files(A, "kb")} == {kb.collection}
    assert engine.doctor(A).healthy
