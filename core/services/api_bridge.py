"""The HTTP API's door into an engine in another process: one operation, ``api_call``, that runs
an API operation (core/api/registry.py) as the user of the API token it carries — the token is
checked here, next to the engine, so the hand-off never lets the API act as anyone else. And
``holder``: which process this is, for the notes of the CLI that reaches it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.services.declare import operation


class ApiBridge:
    def __init__(self, engine: Any, invoke: Callable[..., Any]):
        """``invoke``: core/api/registry.py's door, handed in by the engine (the API's routes are
        built from the operations this bridge is one of, so the bridge does not import them)."""
        self._engine = engine
        self._invoke = invoke

    # uploads come as files the API staged (core/ingest/staging.py)
    @operation(access="open", why="the API token is the credential, checked by the engine for every call",
               handoff=True)
    def api_call(self, op: str, input: dict, token: str, client: str = "",
                 on_event: Callable[[Any], None] | None = None) -> Any:
        """``on_event``: a streaming route's events as they happen (the hand-off writes each on the
        connection at once, so a streamed answer's first words reach the API's client early)."""
        return self._invoke(self._engine, token, op, input, client=client, on_event=on_event)

    @operation(access="open", why="names this process (its role and pid), nothing of anyone's data", handoff=True)
    def holder(self) -> str:
        """Which process this is: the CLI names it in its hand-off notes and refusals."""
        from core.handoff.holder import describe

        return describe()
