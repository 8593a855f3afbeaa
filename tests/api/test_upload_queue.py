"""An API upload returns once its files are stored and queued (202 with the job ids); waiting is the
caller's choice (``?wait=true``, bounded by a timeout); uploads waiting in the queue do not stop
the rest of the API."""

from __future__ import annotations

import threading
import time

import httpx

from core.jobs.worker import wait_until_idle
from tests.api.conftest import PRIVATE_KB, client

DOC = "# Parking\n\nVisitors park on level two of the north garage, spaces 200 to 240.\n"


def _files(i: int = 0) -> list:
    return [("files", (f"note-{i}.md", f"# Note {i}\n\nNote number {i} says the kettle is on floor {i}.\n".encode()))]


def test_an_upload_is_queued_and_answered_at_once_without_a_free_worker(world, api):
    world.engine.save_settings(world.admin, {"jobs": {"dashboard_workers": 0}})  # nobody runs the queue
    with client(api, world.alice_token) as http:
        started = time.monotonic()
        reply = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", files=[("files", ("parking.md", DOC.encode()))],
                          timeout=15)
        assert reply.status_code == 202, reply.text
        body = reply.json()
        assert body["done"] is False and body["results"] == []
        [job] = body["jobs"]
        assert job["name"] == "parking.md" and job["state"] == "queued" and job["job_id"]
        assert http.get(f"/api/v1/jobs/{job['job_id']}").json()["state"] == "queued"
        # a caller who waits is told where things stand when the timeout runs out
        waited = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", params={"wait": "true", "timeout": "1"},
                           files=_files(1), timeout=15)
        assert waited.status_code == 202 and waited.json()["done"] is False
        assert time.monotonic() - started < 10
        status = http.get("/api/v1/uploads", params={"job_ids": [job["job_id"]]}).json()
        assert status["done"] is False and status["jobs"][0]["state"] == "queued"


def test_wait_true_returns_the_results_once_indexed(world, api):
    with client(api, world.alice_token) as http:
        reply = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", params={"wait": "true"},
                          files=[("files", ("parking.md", DOC.encode())), *_files(2)])
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["done"] is True
        assert [r["name"] for r in body["results"]] == ["parking.md", "note-2.md"]
        assert all(r["status"] == "indexed" and r["chunks"] > 0 and r["job_id"] for r in body["results"])
        # without waiting: queued now, indexed a moment later, readable under /api/v1/uploads
        queued = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", files=_files(3)).json()
        assert wait_until_idle(world.engine, 60)
        ids = [j["job_id"] for j in queued["jobs"]]
        later = http.get("/api/v1/uploads", params={"job_ids": ids}).json()
        assert later["done"] is True and later["results"][0]["status"] == "indexed"


def test_waiting_uploads_do_not_stop_the_rest_of_the_api(world, api):
    """With no worker free, 45 uploads wait (more than a thread pool of 40); every other kind of
    request still answers."""
    world.engine.save_settings(world.admin, {"jobs": {"dashboard_workers": 0}})
    failures: list = []

    def upload(i: int) -> None:
        try:
            with client(api, world.alice_token) as http:
                r = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", params={"wait": "true", "timeout": "60"},
                              files=_files(i), timeout=90)
                if r.status_code not in (200, 202, 503):
                    failures.append((i, r.status_code, r.text[:200]))
        except httpx.HTTPError as exc:  # the server stopping under them at the end of the test
            failures.append((i, repr(exc)))

    threads = [threading.Thread(target=upload, args=(i,), daemon=True) for i in range(45)]
    for t in threads:
        t.start()
    time.sleep(3)  # let them reach the server and wait there
    with client(api, world.alice_token) as http:
        for path in ("/api/v1/kbs", "/api/v1/limits", "/v1/models", "/api/v1/jobs"):
            reply = http.get(path, timeout=10)
            assert reply.status_code == 200, (path, reply.text)
        asked = http.post("/api/v1/ask", json={"question": "How many days per week may employees work remotely?"},
                          timeout=30)
        assert asked.status_code == 200
        waiting = [j for j in http.get("/api/v1/jobs", params={"active_only": "true"}).json() if j["state"] == "queued"]
        assert len(waiting) >= 20  # the uploads are really in the queue, waiting
    world.engine.start_workers(1)  # a worker frees them: every waiting upload gets its answer
    for t in threads:
        t.join(timeout=90)
    assert not failures, failures[:3]


def test_an_upload_request_reads_the_settings_once(world, api):
    """The upload limit is read once per request (the gate's token check returns it) and handed
    down: counted at the database, every statement that reads the settings rows."""
    from sqlalchemy import event

    world.engine.start_workers(1)  # already running: a submit reads nothing to start them
    reads: list[str] = []

    def count(conn, cursor, statement, *args) -> None:  # the request's threads, not the workers'
        if "settingsversion" in statement.lower() and not threading.current_thread().name.startswith("ragdesk-worker"):
            reads.append(threading.current_thread().name)

    engine = world.engine._db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        with client(api, world.alice_token) as http:
            reply = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", files=_files(7))
        assert reply.status_code == 202
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(reads) == 1, reads
