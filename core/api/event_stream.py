"""An operation's events as server-sent events, its reply last (``POST /api/v1/ask/stream``).

Each event of the answer goes out the moment the answer makes it, on every backend (in this
process or through the hand-off, core/api/backend.py): ``event: retrieval_started``,
``sources_found``, ``generating``, ``notice``, ``text`` (a piece of the answer's text as the model
writes it) and so on, each with ``data: {"message": ..., "data": {...}}``; then ``event: answer``
with the whole reply (the same JSON as ``POST /api/v1/ask``). A failure before the first event (a
wrong token, a knowledge base the caller may not read, a question over the limit) is an HTTP error
with its status, not a stream; a failure after it is ``event: error`` with the API's error body.

Strict mode holds a model's text until it is checked (core/answering/strict.py), so its text
arrives in one piece after the check; a refusal has no ``text`` event (no model wrote anything):
its answer is the fixed reply, with ``from_kb: false``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi.responses import StreamingResponse

from core.api.errors import error_body, error_code
from core.api.pools import Pool
from core.errors import CoreError

log = logging.getLogger("core.api")


def frame(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


class EventFeed:
    """``run(on_event)`` running on a thread of ``pool``, its events handed to this request's event
    loop in order, then ("result", its return value) or ("error", what it raised): ``next()``
    gives them one by one. ``task`` holds the run (cancelled with the request)."""

    def __init__(self, run: Callable[[Callable[[Any], None]], Any], pool: Pool):
        loop = asyncio.get_running_loop()
        self.items: asyncio.Queue = asyncio.Queue()

        def on_event(event: Any) -> None:  # on the operation's thread
            loop.call_soon_threadsafe(self.items.put_nowait, ("event", event))

        async def work() -> None:
            try:
                self.items.put_nowait(("result", await pool.run(run, on_event)))
            except BaseException as exc:  # handed to the request: raised there or sent as an event
                self.items.put_nowait(("error", exc))
                if isinstance(exc, asyncio.CancelledError):
                    raise

        self.task = asyncio.create_task(work())

    async def next(self) -> tuple[str, Any]:
        return await self.items.get()


async def event_stream(run: Callable[[Callable[[Any], None]], Any], pool: Pool) -> StreamingResponse:
    """``run(on_event)`` runs the operation on a thread of ``pool``, passing its events to
    ``on_event``; they are sent as they come, its reply last."""
    feed = EventFeed(run, pool)
    first = await feed.next()
    if first[0] == "error":
        raise first[1]
    return StreamingResponse(_frames(first, feed), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


async def _frames(item: tuple, feed: EventFeed) -> AsyncIterator[str]:
    while True:
        kind, value = item
        if kind == "event":
            yield frame(value.kind or "status", {"message": value.message, "data": value.data})
        elif kind == "result":
            yield frame("answer", value)
            return
        else:
            if isinstance(value, CoreError):
                yield frame("error", error_body(error_code(value), value.message))
            else:
                log.error("a streamed operation failed", exc_info=value)
                yield frame("error", error_body("internal_error", "the server failed on this answer (see its log)"))
            return
        item = await feed.next()
