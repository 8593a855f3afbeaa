"""Where a web search's time goes: wall and CPU milliseconds per stage.

The flow opens a ``StageClock`` for one search and makes it current (a context variable), so the
index-and-search function records its own stages (chunk, collection, embed, store, retrieve)
without a clock in its signature. Stages measured: ``queries`` (query generation), ``engine``
(the search engine calls), ``load`` (fetching and parsing the pages), then those of indexing.
CPU time is the process's (every thread), so on a shared machine the CPU figures and their
ratios are the ones to compare; wall time is what the user waits.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

_current: ContextVar[StageClock | None] = ContextVar("ragdesk_web_stage_clock", default=None)


@dataclass
class StageClock:
    wall_ms: dict[str, float] = field(default_factory=dict)
    cpu_ms: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, wall_ms: float, cpu_ms: float) -> None:
        self.wall_ms[name] = round(self.wall_ms.get(name, 0.0) + wall_ms, 2)
        self.cpu_ms[name] = round(self.cpu_ms.get(name, 0.0) + cpu_ms, 2)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.add(name, (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)

    @contextmanager
    def current(self) -> Iterator[StageClock]:
        """Make this the clock that ``stage()`` records into, for the calling thread's context."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Record ``name`` into the current clock; nothing happens without one (e.g. a direct call)."""
    clock = _current.get()
    if clock is None:
        yield
        return
    with clock.stage(name):
        yield
