"""A process killed mid-ingest leaves no searchable half file and no orphan vectors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from core.config import RuntimeConfig
from core.engine import Engine
from core.types import SYSTEM_ACTOR
from tests.fakes.embedding_server import fake_embedding_server, slow

REPO = Path(__file__).resolve().parents[2]


def _ingest_script(data_dir: Path, big: Path) -> str:
    return textwrap.dedent(f"""
        from pathlib import Path
        from core.config import RuntimeConfig
        from core.engine import Engine
        from core.types import SYSTEM_ACTOR
        engine = Engine(RuntimeConfig.from_env({str(data_dir)!r}))
        engine.ingest_paths(SYSTEM_ACTOR, "kb", [Path({str(big)!r})])
    """)


def test_kill_during_embedding_leaves_nothing_half_indexed(data_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    big = tmp_path / "big.md"
    big.write_text("\n\n".join(f"## Section {i}\n\nParagraph {i} about topic {i} and more words." for i in range(400)))
    with fake_embedding_server(dimension=16) as srv:
        with Engine(RuntimeConfig.from_env(data_dir)) as engine:
            engine.save_settings(SYSTEM_ACTOR, {
                "embedding": {"provider": "openai", "base_url": srv.openai_url, "model": "fake-embed", "batch_size": 8},
                "chunking": {"chunk_size": 60, "chunk_overlap": 0},
            })
            engine.create_kb(SYSTEM_ACTOR, "kb")
        # every batch after the first few is slow, so the kill lands mid-file
        srv.fail_next(*([slow(0.0)] * 3 + [slow(5.0)] * 50))
        proc = subprocess.Popen([sys.executable, "-c", _ingest_script(data_dir, big)], cwd=REPO,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            deadline = time.monotonic() + 60
            while srv.embed_count < 4 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            assert srv.embed_count >= 4, "the ingest never got to embedding"
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()

        with Engine(RuntimeConfig.from_env(data_dir)) as engine:
            files = engine.list_files(SYSTEM_ACTOR, "kb")
            assert len(files) == 1 and files[0].status == "failed" and "interrupted" in files[0].error
            kb = engine.get_kb(SYSTEM_ACTOR, "kb")
            assert engine._store.count(kb.collection) == 0
            assert engine.doctor(SYSTEM_ACTOR).healthy
