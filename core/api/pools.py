"""Bounded thread pools, one per kind of request, so no kind can starve the others.

Engine calls are blocking, so the API runs them on threads. With one shared pool (Starlette's 40
threads) forty uploads waiting for a worker took every thread, and ``GET /api/v1/kbs`` got no
answer. Here each kind has its own threads and its own short waiting line; a request that finds
its line full is told to come back (503 ``server_busy``, ``Retry-After``) instead of queueing
without end. Waiting for queued jobs holds no thread at all (core/api/uploads.py).

- ``light``: token checks, lists, reads, small writes — quick;
- ``answer``: search, ask, chat completions — CPU-bound (embedding, a model call): a few at once;
- ``upload``: storing a multipart upload's files and queueing their jobs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from anyio import CapacityLimiter, to_thread

from core.errors import CoreError

T = TypeVar("T")


class ServerBusy(CoreError):
    """Too many requests of one kind are running and waiting: try again in a moment (503)."""

    http_status = 503
    code = "server_busy"
    retry_after_seconds = 2


@dataclass
class Pool:
    name: str
    threads: int
    max_waiting: int
    limiter: CapacityLimiter = field(init=False)

    def __post_init__(self) -> None:
        self.limiter = CapacityLimiter(self.threads)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on one of this pool's threads; ServerBusy when its waiting line is full.
        A request cancelled meanwhile (its client gone, the server stopping) does not wait for it."""
        stats = self.limiter.statistics()
        if stats.borrowed_tokens >= stats.total_tokens and stats.tasks_waiting >= self.max_waiting:
            raise ServerBusy(f"too many {self.name} requests at once; try again in a moment")
        return await to_thread.run_sync(fn, *args, limiter=self.limiter, abandon_on_cancel=True)


@dataclass
class Pools:
    light: Pool = field(default_factory=lambda: Pool("light", threads=8, max_waiting=256))
    answer: Pool = field(default_factory=lambda: Pool("answer", threads=3, max_waiting=128))
    upload: Pool = field(default_factory=lambda: Pool("upload", threads=3, max_waiting=256))

    def named(self, kind: str) -> Pool:
        return {"light": self.light, "answer": self.answer, "upload": self.upload}[kind]
