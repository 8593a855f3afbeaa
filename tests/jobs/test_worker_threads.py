"""Each worker process takes its share of the machine's cores for the local model's threads: alone it
takes them all (at most 4); with another worker process running on the machine, half; when that
one stops, all again (``RAGDESK_TORCH_THREADS`` pins them instead). Real processes: the other
worker is ``python -m core worker`` on a data folder of its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from core.embeddings._torch_threads import on_torch_thread
from core.ingest.service import Upload
from core.jobs import machine
from core.types import SYSTEM_ACTOR as A
from tests.conftest import REPO_ROOT
from tests.engine.conftest import make_engine
from tests.jobs.conftest import cli_env, wait_for

CORES = len(os.sched_getaffinity(0))


def _threads() -> int:
    import torch

    return on_torch_thread(torch.get_num_threads)


def _ingest_one(engine, name: str) -> None:
    upload = Upload(name, f"# {name}\n\nThe wren sings at dawn.\n".encode())
    [result] = engine.submit_ingest(A, "kb", [upload]).result(120)
    assert result.status == "indexed", result


@pytest.mark.skipif(CORES < 2, reason="one core: nothing to share")
def test_two_worker_processes_share_the_cores(data_dir, tmp_path, monkeypatch):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))  # this test's machine-wide count, not the host's
    monkeypatch.delenv("RAGDESK_TORCH_THREADS", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    other_dir = tmp_path / "other-data"
    other_dir.mkdir()
    env = cli_env(other_dir, XDG_RUNTIME_DIR=str(runtime))
    other = subprocess.Popen([sys.executable, "-m", "core", "worker"], cwd=REPO_ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: machine.worker_processes() == 1 and any(runtime.joinpath("workers").iterdir()), 60,
                 "the other worker registered")
        with make_engine(data_dir, embedding={"model": "all-minilm-l6-v2"}) as engine:
            engine.create_kb(A, "kb")
            _ingest_one(engine, "a.md")  # this process's pool runs it: two worker processes now
            assert machine.worker_processes() == 2
            assert _threads() == max(1, min(4, CORES // 2))
            other.send_signal(signal.SIGTERM)
            other.wait(30)
            _ingest_one(engine, "b.md")
            assert machine.worker_processes() == 1
            assert _threads() == min(4, CORES)
    finally:
        if other.poll() is None:
            other.kill()
            other.wait(10)
