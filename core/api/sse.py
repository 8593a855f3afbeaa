"""An OpenAI chat completion sent as server-sent events (``stream: true``): chunks of
``chat.completion.chunk``, the last one carrying ``finish_reason``, the ``citations`` and ragdesk's
facts about the answer, then ``data: [DONE]``.

The text goes out as the model writes it (``live_stream``: the answer runs on a thread of the
API's answer pool and its ``text`` events become content chunks), on every deployment shape: when
this process holds the engine the events come from it; when the dashboard's process answers
through the hand-off, each event crosses the socket the moment the answer makes it
(core/handoff/channel.py). A client that goes away mid-answer stops getting chunks; the answer
runs on to its end where the engine is (nothing of a completion is stored).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from fastapi.responses import StreamingResponse

from core.api.errors import error_body, error_code
from core.api.event_stream import EventFeed
from core.api.pools import Pool
from core.errors import CoreError

log = logging.getLogger("core.api")

_PIECE_CHARS = 32  # characters per content chunk (any script: Chinese has no spaces to split at)
REVISED_NOTICE = "the streamed text was revised after it was sent; ragdesk.content holds the whole answer"


def _event(obj: dict) -> str:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


def _content(head: dict, text: str) -> str:
    return _event({**head, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def _opening(head: dict) -> str:
    return _event({**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})


def _pieces(head: dict, text: str) -> Iterator[str]:
    for i in range(0, len(text), _PIECE_CHARS):
        yield _content(head, text[i:i + _PIECE_CHARS])


def _closing(head: dict, completion: dict, facts: dict | None = None) -> Iterator[str]:
    choice = completion["choices"][0]
    yield _event({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
                  "citations": completion.get("citations", []), "ragdesk": facts or completion.get("ragdesk", {})})
    yield "data: [DONE]\n\n"


async def live_stream(run: Callable[[Callable[[Any], None]], dict], model: str, pool: Pool) -> StreamingResponse:
    """``run(on_event)`` answers the completion, passing the answer's events to ``on_event``; it
    runs on a thread of ``pool`` (bounded, core/api/pools.py), its events handed to this request's
    event loop. A failure before the answer's first text (a wrong token, an unknown model, a
    question over the limit, a store that cannot be reached) raises here, so it is an HTTP error
    with its status, not a stream."""
    feed = EventFeed(run, pool)
    first = await feed.next()
    while first[0] == "event" and not (first[1].kind == "text" and first[1].message):
        first = await feed.next()  # statuses send nothing: the reply starts with the first text
    if first[0] == "error":
        raise first[1]
    head = {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model}
    return StreamingResponse(_live_chunks(head, first, feed), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache"})


async def _live_chunks(head: dict, item: tuple, feed: EventFeed) -> AsyncIterator[str]:
    yield _opening(head)
    sent: list[str] = []
    while True:
        kind, value = item
        if kind == "event" and value.kind == "text" and value.message:
            sent.append(value.message)
            yield _content(head, value.message)
        elif kind == "result":
            for chunk in _finish(head, "".join(sent), value):
                yield chunk
            return
        elif kind == "error":
            if isinstance(value, CoreError):
                yield _event(error_body(error_code(value), value.message))
            else:
                log.error("a streamed answer failed", exc_info=value)
                yield _event(error_body("internal_error", "the server failed on this answer (see its log)"))
            yield "data: [DONE]\n\n"
            return
        item = await feed.next()


def _finish(head: dict, sent: str, completion: dict) -> Iterator[str]:
    """The rest of the answer's text, then the closing chunk. Live text is the answer's own from
    its first piece; only text a model wrote before calling a tool is dropped from the answer
    after it was sent, and then the whole answer travels in the closing chunk, with a notice."""
    full = completion["choices"][0]["message"]["content"]
    facts = dict(completion.get("ragdesk", {}))
    if full.startswith(sent):
        yield from _pieces(head, full[len(sent):])
    else:
        facts["notices"] = [*facts.get("notices", []), REVISED_NOTICE]
        facts["content"] = full
    yield from _closing(head, completion, facts)

