"""OpenAI chat-completions wire format for the fake server: SSE chunks and whole responses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from .llm_server import Reply

STREAM_TYPE = "text/event-stream"


def _pieces(s: str, size: int) -> list[str]:
    return [s[i : i + size] for i in range(0, len(s), size)] or [""]


def _usage(reply: "Reply", body: dict[str, Any]) -> dict[str, int]:
    prompt = sum(len(str(m.get("content") or "")) for m in body.get("messages", [])) // 4 + 1
    completion = len(reply.text) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _finish(reply: "Reply") -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _chunk(body: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> bytes:
    payload = {
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_700_000_000,
        "model": body.get("model", ""),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n"


def stream_chunks(reply: "Reply", body: dict[str, Any]) -> Iterator[bytes]:
    yield _chunk(body, {"role": "assistant", "content": ""})
    if reply.text:
        for piece in _pieces(reply.text, reply.chunk_chars):
            yield _chunk(body, {"content": piece})
    for i, (name, args) in enumerate(reply.tool_calls):
        # The first fragment names the call; the JSON arguments follow in small pieces.
        head = {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": ""}}
        yield _chunk(body, {"tool_calls": [head]})
        for piece in _pieces(json.dumps(args, ensure_ascii=False), reply.chunk_chars):
            yield _chunk(body, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield _chunk(body, {}, _finish(reply))
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_700_000_000,
                 "model": body.get("model", ""), "choices": [], "usage": _usage(reply, body)}
        yield b"data: " + json.dumps(usage).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


def whole_response(reply: "Reply", body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
            for i, (name, args) in enumerate(reply.tool_calls)
        ]
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 1_700_000_000,
        "model": body.get("model", ""),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}],
        "usage": _usage(reply, body),
    }
