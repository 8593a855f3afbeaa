"""An OpenAI chat completion sent as server-sent events (``stream: true``): chunks of
``chat.completion.chunk``, the last one carrying ``finish_reason``, the ``citations`` and ragdesk's
facts about the answer, then ``data: [DONE]``.

The answer is complete when the first chunk goes out (it is answered next to the engine, which may
be the dashboard's process): clients that read a stream get one, in pieces.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from fastapi.responses import StreamingResponse

_PIECE_CHARS = 32  # characters per content chunk (any script: Chinese has no spaces to split at)


def _event(obj: dict) -> str:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


def completion_chunks(completion: dict) -> Iterator[str]:
    head = {"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"],
            "model": completion["model"]}
    choice = completion["choices"][0]
    yield _event({**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})
    content = choice["message"]["content"]
    for i in range(0, len(content), _PIECE_CHARS):
        piece = content[i:i + _PIECE_CHARS]
        yield _event({**head, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
    yield _event({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
                  "citations": completion.get("citations", []), "ragdesk": completion.get("ragdesk", {})})
    yield "data: [DONE]\n\n"


def completion_stream(completion: dict) -> StreamingResponse:
    return StreamingResponse(completion_chunks(completion), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache"})


# Operations whose input field ``stream: true`` asks for their output as events.
STREAMED = {"openai_chat": completion_stream}
