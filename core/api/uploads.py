"""``POST /api/v1/kbs/{kb}/files``: the files are stored and queued, and the reply says so at once
(202, each file's job); ``?wait=true`` waits for them, at most ``timeout`` seconds, holding no
thread while it waits (a job Future of the engine in this process, or short polls of
``/api/v1/uploads`` through the hand-off).

It used to wait for indexing on one of the API's threads: with no worker free, forty waiting
uploads took every thread and the whole API stopped answering.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from core.api.gate import LIMITS_STATE
from core.api.multipart import stage_upload
from core.api.pools import Pools
from core.ingest.staging import remove_staged

DEFAULT_WAIT_SECONDS = 60.0
MAX_WAIT_SECONDS = 600.0
_POLL_FIRST, _POLL_MAX = 0.25, 2.0
_STOP_CHECK = 0.5  # how soon a waiting upload notices the server stopping


async def upload(backend: Any, pools: Pools, request: Any, token: str, path: dict, op_name: str, *,
                 wait: bool, timeout: float, stopping: threading.Event) -> tuple[dict, int]:
    """(reply, status): 202 while any file's job is unfinished, 200 once every one has finished."""
    client = request.client.host if request.client else ""
    limits = request.scope["state"][LIMITS_STATE]  # read once for this request, by the gate
    staged = await stage_upload(request.headers.get("content-type", ""), request.stream(), backend.data_dir, limits)
    try:
        payload = {**path, "files": [{"name": name, "path": str(p)} for name, p in staged]}
        status = await pools.upload.run(backend.call, op_name, payload, token, client)
    finally:
        remove_staged([p for _, p in staged])
    if wait and not status["done"]:
        ids = [job["job_id"] for job in status["jobs"]]
        status = await wait_for_jobs(backend, pools, token, client, ids, timeout, stopping)
    return status, 200 if status["done"] else 202


async def wait_for_jobs(backend: Any, pools: Pools, token: str, client: str, job_ids: list[str],
                        timeout: float, stopping: threading.Event) -> dict:
    """The upload's status once its jobs have finished, when ``timeout`` runs out, or as soon as
    the server begins to stop (the caller gets where things stand, not a cut connection)."""
    deadline = time.monotonic() + max(0.0, min(timeout, MAX_WAIT_SECONDS))
    future = backend.jobs_future(job_ids)
    if future is not None:  # this process's engine watches the queue (one poll for every waiter)
        waited = asyncio.wrap_future(future)
        while not waited.done() and not stopping.is_set() and time.monotonic() < deadline:
            await asyncio.wait([waited], timeout=min(_STOP_CHECK, max(0.0, deadline - time.monotonic())))
        if waited.done() and not waited.cancelled():
            waited.exception()  # the jobs' own errors: their results say them
        return await _status(backend, pools, token, client, job_ids)
    pause = _POLL_FIRST
    while True:
        status = await _status(backend, pools, token, client, job_ids)
        left = deadline - time.monotonic()
        if status["done"] or left <= 0 or stopping.is_set():
            return status
        await asyncio.sleep(min(pause, left, _STOP_CHECK))
        pause = min(pause * 1.5, _POLL_MAX)


async def _status(backend: Any, pools: Pools, token: str, client: str, job_ids: list[str]) -> dict:
    return await pools.light.run(backend.call, "upload_status", {"job_ids": job_ids}, token, client)
