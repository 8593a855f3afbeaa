"""Where the API's operations run: on an engine this process holds, or — when the dashboard holds
the embedded store — in the dashboard's process through the hand-off's one ``api_call`` command.

Either way the same ``registry.invoke`` runs next to the engine and checks the caller's token
there; the API process passes the token on and never decides who is asking. Either way a
streaming route's events reach this process as they happen (through the hand-off each is written
on the socket the moment the answer makes it), so a streamed answer is sent as the model writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

from core.answering.types import AnswerEvent
from core.errors import StoreBusy

log = logging.getLogger("core.api")


class Backend(Protocol):
    data_dir: Path
    kind: str  # "engine" | "handoff"

    def call(self, op: str, payload: dict, token: str, client: str,
             on_event: Callable[[Any], None] | None = None) -> Any:
        """``on_event``: a streaming route's events, as they happen (sse.live_stream)."""

    def jobs_future(self, job_ids: list[str]) -> Future | None:
        """A Future done once these jobs have finished, when this process watches the queue
        (None: the caller polls)."""

    def close(self) -> None: ...


class EngineBackend:
    kind = "engine"

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

    def __init__(self, data_dir: Path):
        from core.handoff.channel import RemoteEngine
        from core.handoff.holder import holder_of

        self.data_dir = Path(data_dir)
        self.holder = holder_of(RemoteEngine(self.data_dir))  # which process serves the calls, in words

    def call(self, op: str, payload: dict, token: str, client: str,
             on_event: Callable[[Any], None] | None = None) -> Any:
        from core.handoff.channel import RemoteEngine

        # found anew each call: a restarted dashboard listens on a fresh socket
        remote = RemoteEngine(self.data_dir)
        if on_event is None:
            return remote.call("api_call", op=op, input=payload, token=token, client=client)
        return remote.call("api_call", op=op, input=payload, token=token, client=client,
                           on_event=lambda event: on_event(answer_event(event)))

    def jobs_future(self, job_ids: list[str]) -> Future | None:
        return None  # the dashboard's process runs the queue: the API polls /api/v1/uploads

    def close(self) -> None:
        pass


def answer_event(event: dict) -> AnswerEvent:
    """An answer's event as the hand-off carries it (JSON), as the engine's own process has it."""
    data = event.get("data")
    return AnswerEvent(str(event.get("kind", "")), str(event.get("message", "")),
                       data if isinstance(data, dict) else {})


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
