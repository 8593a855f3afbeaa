"""A Qdrant server that cannot be reached (``QDRANT_URL`` at a port nobody listens on, or a server
that answers 503): a start-up check that names the server and the problem; every API route that
needs the store answers 503 ``store_unavailable`` (never an error as an assistant's answer, never
200 with an empty text); a job that meets it is tried again after a pause, up to
``jobs.max_attempts``, its message saying so."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import openai
import pytest

from core.api.app import create_app
from core.api.backend import EngineBackend
from core.ingest.service import Upload
from core.jobs import queue
from core.types import SYSTEM_ACTOR as A
from tests.api.conftest import PRIVATE_KB, LiveServer, build_world, client
from tests.conftest import REPO_ROOT
from tests.engine.conftest import make_engine
from tests.fakes.qdrant_server import FakeQdrantServer, fake_qdrant_server
from tests.jobs.conftest import cli_env, wait_for

QUESTION = "How many days per week may employees work remotely?"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def world_without_store(data_dir, monkeypatch):
    """alice's knowledge base indexed on a Qdrant server that is then gone (its port closed)."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    srv = FakeQdrantServer().start()
    monkeypatch.setenv("QDRANT_URL", srv.url)
    engine = make_engine(data_dir)
    world = build_world(engine)
    srv.stop()
    server = LiveServer(create_app(EngineBackend(engine)))
    yield world, server, srv.url
    server.stop()
    engine.close()


def test_every_route_that_needs_the_store_answers_503(world_without_store):
    world, api, url = world_without_store
    with client(api, world.alice_token) as http:
        assert http.get("/api/v1/kbs").status_code == 200  # the database alone answers this
        for method, path, body in (("GET", f"/api/v1/kbs/{PRIVATE_KB}", None),
                                   ("POST", "/api/v1/search", {"query": "remote work"}),
                                   ("POST", "/api/v1/ask", {"question": QUESTION}),
                                   ("POST", "/api/v1/ask", {"question": QUESTION, "mode": "strict"}),
                                   ("DELETE", f"/api/v1/files/{world.file_ids[0]}", None)):
            reply = http.request(method, path, json=body)
            assert reply.status_code == 503, (path, reply.status_code, reply.text)
            error = reply.json()["error"]
            assert error["code"] == "store_unavailable", (path, error)
            assert "could not be reached" in error["message"] or "cannot be reached" in error["message"], error
        assert reply.headers.get("retry-after")
    ai = openai.OpenAI(base_url=f"{api.url}/v1", api_key=world.alice_token, max_retries=0, timeout=60)
    for stream in (False, True):
        with pytest.raises(openai.APIStatusError) as refused:
            made = ai.chat.completions.create(model="ragdesk", messages=[{"role": "user", "content": QUESTION}],
                                              stream=stream)
            if stream:
                list(made)
        assert refused.value.status_code == 503
        assert refused.value.body["code"] == "store_unavailable"  # the openai client unwraps "error"


def test_a_job_that_meets_a_503_is_tried_again_and_indexes(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with fake_qdrant_server() as srv:
        monkeypatch.setenv("QDRANT_URL", srv.url)
        with make_engine(data_dir, jobs={"max_attempts": 3}) as engine:
            engine.create_kb(A, "kb")
            srv.refuse_next("PUT", r"/collections/[^/]+/points", status=503)  # the first upsert: server trouble
            future = engine.submit_ingest(A, "kb", [Upload("a.md", b"# A\n\nThe otter sleeps in burrow nine.\n")])
            [job_id] = future.job_ids
            again = wait_for(lambda: (j := engine.job(A, job_id)).state == "queued" and j.attempts == 1 and j, 60,
                             "the job queued again after its first attempt")
            assert "trying again" in again.message and "attempt 1 of 3" in again.message, again.message
            [result] = future.result(timeout=120)
            assert result.status == "indexed", result
            assert engine.job(A, job_id).attempts == 2


def test_a_job_fails_for_good_after_max_attempts_saying_so(world_without_store):
    world, _, _ = world_without_store
    engine = world.engine
    engine.save_settings(world.admin, {"jobs": {"max_attempts": 2}})
    future = engine.submit_ingest(world.alice, PRIVATE_KB, [Upload("b.md", b"# B\n\nThe heron waits.\n")])
    [job_id] = future.job_ids
    wait_for(lambda: queue.finished(engine.job(world.alice, job_id)), 90, "the job to end", every=0.2)
    job = engine.job(world.alice, job_id)
    assert job.state == "failed" and job.attempts == 2, (job.state, job.attempts, job.error)
    assert "2 attempts" in job.error and "cannot be reached" in job.error, job.error


def test_start_up_names_the_server_and_the_problem(data_dir):
    port = _closed_port()
    env = cli_env(data_dir, QDRANT_URL=f"http://127.0.0.1:{port}")
    api_port = _closed_port()
    proc = subprocess.Popen([sys.executable, "-W", "default", "-m", "core", "api", "--port", str(api_port)],
                            cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        import httpx

        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                httpx.get(f"http://127.0.0.1:{api_port}/openapi.json", timeout=2, trust_env=False)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert proc.poll() is None, "the API did not start"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}" in err and "cannot be reached" in err and "refused" in err, err[-3000:]
    assert "UserWarning" not in err and "Failed to obtain server version" not in err, err[-3000:]
