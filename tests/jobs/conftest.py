"""Helpers for the job-queue tests: CLI processes (workers among them) on one data folder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from sqlmodel import select

from core.db.database import Database
from core.db.models import FileRecord, Job

REPO = Path(__file__).resolve().parents[2]


def cli_env(data_dir: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update({"RAGDESK_DATA_DIR": str(data_dir), "RAGDESK_EMBEDDING__PROVIDER": "local",
                "RAGDESK_EMBEDDING__MODEL": "hash-64", "HF_HUB_OFFLINE": "1", **extra})
    return env


def run(env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"{args}: exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def start(env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "core", *args], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def tiny_docs(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        p = folder / f"note-{i:02d}.md"
        p.write_text(f"# Note {i}\n\nThe magpie number {i} nests in tree {i * 7}.\n\n" + "Filler words here. " * 40,
                     encoding="utf-8")
        paths.append(p)
    return paths


def jobs_of(db: Database) -> list[Job]:
    with db.read() as s:
        return list(s.exec(select(Job)).all())


def files_of(db: Database) -> list[FileRecord]:
    with db.read() as s:
        return list(s.exec(select(FileRecord)).all())


def wait_for(predicate, timeout: float, what: str, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")
