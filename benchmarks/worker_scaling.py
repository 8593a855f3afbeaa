"""One worker process against two on this machine: 40 queued files, each configuration timed.

The team set-up the issue measured: PostgreSQL (``--database-url``, default
``$RAGDESK_TEST_POSTGRES_URL``; a fresh schema per run), a Qdrant server (here the stand-in of
tests/fakes/qdrant_server.py, in this process), the default embedder, 40 notes of three XQuAD
passages each queued with ``ingest --detach``, then ``python -m core worker --until-idle``
processes started together. Configurations, alternated round by round:

- ``1 worker``: one process (its torch threads: the machine's cores, at most 4);
- ``2 workers``: two processes, each sized by default from the cores and the worker processes on
  the machine (core/jobs/machine.py: half the cores each);
- ``2 workers, all cores each``: two processes with ``RAGDESK_TORCH_THREADS`` = the cores (what
  every worker took before).

Printed per run: the wall time from the workers' start to the last one's exit (model loading
included) and the span from the first job's claim to the last job's end (from the job rows).

    .venv/bin/python benchmarks/worker_scaling.py [--rounds 2] [--files 40]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from tests.fakes.qdrant_server import fake_qdrant_server  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "retrieval" / "xquad-en-chunks" / "corpus.jsonl"
CORES = len(os.sched_getaffinity(0))


def write_notes(folder: Path, n: int) -> list[Path]:
    texts = [json.loads(line)["text"] for line in CORPUS.open(encoding="utf-8")][: 3 * n]
    paths = []
    for i in range(n):
        p = folder / f"note_{i:02d}.md"
        p.write_text(f"# Note {i}\n\n" + "\n\n".join(texts[3 * i:3 * i + 3]), encoding="utf-8")
        paths.append(p)
    return paths


def cli(env: dict, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"{args}: {out.stderr[-2000:]}")
    return out.stdout


def one_run(base_url: str, qdrant_url: str, files: int, workers: int, pinned: int | None) -> tuple[float, float]:
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base_url)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in base_url else "?"
    url = f"{base_url}{sep}options=-csearch_path%3D{schema}"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data, runtime = Path(tmp) / "data", Path(tmp) / "runtime"
            data.mkdir()
            runtime.mkdir(mode=0o700)
            env = {k: v for k, v in os.environ.items() if k != "RAGDESK_TORCH_THREADS"}
            env.update(DATABASE_URL=url, QDRANT_URL=qdrant_url, RAGDESK_DATA_DIR=str(data), HF_HUB_OFFLINE="1",
                       TRANSFORMERS_OFFLINE="1", XDG_RUNTIME_DIR=str(runtime),
                       RAGDESK_COLLECTION_PREFIX=f"b{uuid.uuid4().hex[:6]}_")
            if pinned:
                env["RAGDESK_TORCH_THREADS"] = str(pinned)
            cli(env, "kb", "create", "notes")
            docs = Path(tmp) / "docs"
            docs.mkdir()
            cli(env, "ingest", "--kb", "notes", "--detach", *map(str, write_notes(docs, files)))
            started = time.monotonic()
            procs = [subprocess.Popen([sys.executable, "-m", "core", "worker", "--until-idle"], cwd=ROOT, env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                     for _ in range(workers)]
            for p in procs:
                _, err = p.communicate(timeout=3600)
                if p.returncode != 0:
                    raise SystemExit(f"a worker failed: {err[-2000:]}")
            wall = time.monotonic() - started
            with admin.begin() as conn:
                conn.execute(text(f"SET search_path TO {schema}"))
                first, last, done = conn.execute(text(
                    "SELECT min(started_at), max(finished_at), count(*) FILTER (WHERE state = 'done') FROM job")).one()
            if done != files:
                raise SystemExit(f"only {done} of {files} jobs done")
            return wall, (last - first).total_seconds()
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--database-url", default=os.environ.get("RAGDESK_TEST_POSTGRES_URL", ""))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--files", type=int, default=40)
    args = ap.parse_args()
    if not args.database_url:
        raise SystemExit("set --database-url or RAGDESK_TEST_POSTGRES_URL (a PostgreSQL server)")
    configs = [("1 worker", 1, None), ("2 workers", 2, None), ("2 workers, all cores each", 2, CORES)]
    print(f"{args.files} files, {CORES} cores; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with fake_qdrant_server() as qdrant:
        for r in range(args.rounds):
            for name, workers, pinned in configs:
                wall, span = one_run(args.database_url, qdrant.url, args.files, workers, pinned)
                print(f"  round {r + 1}, {name:<27}: {wall:6.1f} s wall (models loaded included), "
                      f"{span:6.1f} s from the first claim to the last job's end; "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
