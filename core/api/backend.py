"""Where the API's operations run: on an engine this process holds, or — when the dashboard holds
the embedded store — in the dashboard's process through the hand-off's one ``api_call`` command.

Either way the same ``registry.invoke`` runs next to the engine and checks the caller's token
there; the API process passes the token on and never decides who is asking.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

from core.errors import StoreBusy

log = logging.getLogger("core.api")


class Backend(Protocol):
    data_dir: Path
    kind: str  # "engine" | "handoff"

    def call(self, op: str, payload: dict, token: str, client: str) -> Any: ...

    # whether a streaming operation's events reach this process as they happen (sse.live_stream)
    live_events: bool

    def jobs_future(self, job_ids: list[str]) -> Future | None:
        """A Future done once these jobs have finished, when this process watches the queue
        (None: the caller polls)."""

    def close(self) -> None: ...


class EngineBackend:
    kind = "engine"
    live_events = True

    def __init__(self, engine: Any, *, owned: bool = False):
        self.engine, self._owned = engine, owned
        self.data_dir = Path(engine.config.data_dir)

    def call(self, op: str, payload: dict, token: str, client: str, on_event=None) -> Any:
        from core.api.registry import invoke

        return invoke(self.engine, token, op, payload, client=client, on_event=on_event)

    def jobs_future(self, job_ids: list[str]) -> Future | None:
        # the engine's one watcher reads every waited-for job in one query a few times a second
        return self.engine.runtime.watcher.watch(job_ids)

    def close(self) -> None:
        if self._owned:  # a server being stopped: jobs running here go back to the queue
            self.engine.close(interrupt_jobs=True)


class HandoffBackend:
    kind = "handoff"
    live_events = False  # the hand-off answers once, when the call is done: a stream is sent in pieces after it

    def __init__(self, data_dir: Path):
        from core.handoff.channel import RemoteEngine
        from core.handoff.holder import holder_of

        self.data_dir = Path(data_dir)
        self.holder = holder_of(RemoteEngine(self.data_dir))  # which process serves the calls, in words

    def call(self, op: str, payload: dict, token: str, client: str) -> Any:
        from core.handoff.channel import RemoteEngine

        # found anew each call: a restarted dashboard listens on a fresh socket
        return RemoteEngine(self.data_dir).call("api_call", op=op, input=payload, token=token, client=client)

    def jobs_future(self, job_ids: list[str]) -> Future | None:
        return None  # the dashboard's process runs the queue: the API polls /api/v1/uploads

    def close(self) -> None:
        pass


def open_backend(data_dir: str | Path | None = None) -> Backend:
    """This process's own engine (serving the CLI hand-off as the dashboard does), or the
    dashboard's through the hand-off when it holds the embedded store."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.handoff.channel import find_socket

    config = RuntimeConfig.from_env(data_dir)
    try:
        engine = Engine(config, serve_handoff=True)
    except StoreBusy:
        if find_socket(config.data_dir) is None:
            raise StoreBusy("the embedded vector store is held by a process that does not accept hand-offs: "
                            "stop it, or point both at a Qdrant server with QDRANT_URL") from None
        backend = HandoffBackend(config.data_dir)
        log.warning("%s holds the store: API calls run there (hand-off)", backend.holder)
        return backend
    # the queue's workers run here, as in the dashboard: jobs queued before this start (or queued
    # again because the process before it stopped) do not wait for the next upload
    engine.start_workers()
    return EngineBackend(engine, owned=True)
