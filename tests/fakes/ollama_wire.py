"""Ollama /api/chat wire format for the fake server: NDJSON lines and whole responses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    from .llm_server import Reply

STREAM_TYPE = "application/x-ndjson"
_CREATED = "2026-01-01T00:00:00.000000Z"


def _line(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode() + b"\n"


def _message(content: str, tool_calls: list | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        msg["tool_calls"] = [{"function": {"name": n, "arguments": a}} for n, a in tool_calls]
    return msg


def _final(reply: "Reply", body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    prompt = sum(len(str(m.get("content") or "")) for m in body.get("messages", [])) // 4 + 1
    return {
        "model": body.get("model", ""), "created_at": _CREATED, "message": message, "done": True,
        "done_reason": reply.finish_reason or "stop", "total_duration": 1000, "load_duration": 10,
        "prompt_eval_count": prompt, "eval_count": len(reply.text) // 4 + 1,
    }


def stream_chunks(reply: "Reply", body: dict[str, Any]) -> Iterator[bytes]:
    model = body.get("model", "")
    text = reply.text
    for i in range(0, len(text), reply.chunk_chars):
        piece = text[i : i + reply.chunk_chars]
        yield _line({"model": model, "created_at": _CREATED, "message": _message(piece), "done": False})
    if reply.tool_calls:
        # Ollama sends tool calls whole, one chunk per call.
        for call in reply.tool_calls:
            yield _line({"model": model, "created_at": _CREATED, "message": _message("", [call]), "done": False})
    yield _line(_final(reply, body, _message("")))


def whole_response(reply: "Reply", body: dict[str, Any]) -> dict[str, Any]:
    return _final(reply, body, _message(reply.text, reply.tool_calls))
