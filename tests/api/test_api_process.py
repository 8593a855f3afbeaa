"""``python -m core api`` as a process: SIGTERM stops it promptly even with uploads waiting and a job
running (that job goes back to the queue), and jobs queued before it started — or queued again
because the API before it was killed — are run without waiting for the next upload."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

import httpx

from core.config import RuntimeConfig
from core.db.database import Database
from core.db.models import Job
from core.ingest.jobs import HOST
from tests.conftest import REPO_ROOT
from tests.fakes.embedding_server import Failure, fake_embedding_server, held
from tests.jobs.conftest import cli_env, jobs_of, run, tiny_docs, wait_for

PASSWORD = "correct horse battery"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_api(env: dict) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "core", "api", "--port", str(port)], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            httpx.get(f"{url}/openapi.json", timeout=2, trust_env=False)
            return proc, url
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"the API did not start: {proc.communicate(timeout=10)[1][-2000:]}")


def _admin_token(env: dict) -> str:
    """The first account of the data folder (an admin) and an API token of its own."""
    subprocess.run([sys.executable, "-m", "core", "users", "create", "root"], cwd=REPO_ROOT, env=env,
                   input=PASSWORD + "\n", capture_output=True, text=True, check=True, timeout=120)
    made = run(env, "--json", "tokens", "create", "--user", "root", "--label", "test")
    return json.loads(made.stdout)["token"]


def _stopped_within(proc: subprocess.Popen, seconds: float) -> float:
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
        raise AssertionError(f"the API was still running {seconds} s after SIGTERM") from None
    return time.monotonic() - sent


def test_sigterm_stops_the_api_promptly_while_uploads_wait(data_dir):
    env = cli_env(data_dir, RAGDESK_JOBS__DASHBOARD_WORKERS="0")  # nobody runs the queue: uploads wait
    token = _admin_token(env)
    proc, url = _start_api(env)
    headers = {"Authorization": f"Bearer {token}"}
    try:
        made = httpx.post(f"{url}/api/v1/kbs", json={"name": "notes"}, headers=headers, trust_env=False)
        assert made.status_code == 201

        answers: list = []

        def upload(i: int) -> None:
            try:
                reply = httpx.post(f"{url}/api/v1/kbs/notes/files", params={"wait": "true", "timeout": "600"},
                                   headers=headers, files=[("files", (f"n{i}.md", f"# n{i}\n\nnote {i}\n".encode()))],
                                   timeout=120, trust_env=False)
                answers.append(reply.status_code)
            except httpx.HTTPError as exc:
                answers.append(repr(exc))

        threads = [threading.Thread(target=upload, args=(i,), daemon=True) for i in range(10)]
        for t in threads:
            t.start()
        db = Database(RuntimeConfig.from_env(data_dir).database_url)
        try:
            wait_for(lambda: Counter(j.state for j in jobs_of(db))["queued"] == 10, 60, "ten uploads queued")
        finally:
            db.dispose()
        took = _stopped_within(proc, 20)
        for t in threads:
            t.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert took < 20
    # each waiting upload was told where its file stands (202, still queued), not cut off
    assert answers == [202] * 10, answers
    assert "Exception in ASGI application" not in proc.stderr.read()


def test_sigterm_puts_a_running_job_back_in_the_queue(data_dir, tmp_path):
    with fake_embedding_server(dimension=16) as srv:
        env = cli_env(data_dir, RAGDESK_EMBEDDING__PROVIDER="openai", RAGDESK_EMBEDDING__BASE_URL=srv.openai_url,
                      RAGDESK_EMBEDDING__MODEL="fake-embed")
        run(env, "kb", "create", "notes")
        [path] = tiny_docs(tmp_path / "docs", 1)
        queued = json.loads(run(env, "--json", "ingest", "--kb", "notes", "--detach", str(path)).stdout)
        [job_id] = [j["id"] for j in queued["jobs"]]
        gate = held()
        srv.fail_next(Failure(), gate)  # its embedding call waits at the server: the job is mid-work
        proc, _ = _start_api(env)
        try:
            assert gate.entered.wait(90), "the queued job never started"
            took = _stopped_within(proc, 30)
        finally:
            gate.gate.set()
            if proc.poll() is None:
                proc.kill()
        db = Database(RuntimeConfig.from_env(data_dir).database_url)
        try:
            with db.read() as s:
                job = s.get(Job, job_id)
            assert job.state == "queued" and "queued again" in job.message, (job.state, job.message, job.error)
        finally:
            db.dispose()
        assert took < 30
        done = json.loads(run(env, "--json", "worker", "--until-idle").stdout)
        assert done["ran"] == 1
        listed = json.loads(run(env, "--json", "files", "list", "--kb", "notes").stdout)
        assert [f["status"] for f in listed] == ["indexed"], listed


def test_jobs_waiting_at_start_are_run_without_a_new_upload(data_dir, tmp_path):
    env = cli_env(data_dir)
    run(env, "kb", "create", "notes")
    paths = tiny_docs(tmp_path / "docs", 3)
    queued = json.loads(run(env, "--json", "ingest", "--kb", "notes", "--detach", *map(str, paths)).stdout)
    ids = [j["id"] for j in queued["jobs"]]
    # one of them was running in an API that was killed: its worker's process is gone
    dead = subprocess.Popen(["true"])
    dead.wait()
    db = Database(RuntimeConfig.from_env(data_dir).database_url)
    try:
        with db.write() as s:
            job = s.get(Job, ids[0])
            job.state, job.worker_id, job.attempts = "running", f"{HOST}:{dead.pid}:w1:x", 1
            job.pid, job.host = dead.pid, HOST
            s.add(job)
        proc, _ = _start_api(env)
        try:
            wait_for(lambda: all(j.state == "done" for j in jobs_of(db)), 90, "the waiting jobs run", every=0.2)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        assert Counter(j.state for j in jobs_of(db)) == {"done": 3}
    finally:
        db.dispose()
