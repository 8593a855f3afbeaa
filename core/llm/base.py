"""Chat-model types and the ``ChatModel`` protocol every provider implements.

Providers stream three kinds of events: ``TextDelta`` pieces of the answer, one
``ToolCallsReady`` when the model asks for tools (arguments already parsed), and a final
``Done``. Failures are raised as ``LLMError`` with a message safe to show an admin.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Literal, Protocol, Union, runtime_checkable
from urllib.parse import urlsplit

from core.errors import BlockedAddress, InvalidInput

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"

Role = Literal["system", "user", "assistant", "tool"]
_ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model; ``parameters`` is a JSON schema object."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        # Ollama accepts the same shape.
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


@dataclass(frozen=True)
class ToolCall:
    """A tool call requested by the model. Ollama sends no ids, so its provider makes them up."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Passage:
    """A numbered piece of retrieved text; the answer cites it as ``[n]``."""

    n: int
    text: str
    source: str
    origin: str = "kb"  # kb | attachment (a chat's file) | url (a fetched page) | web (a web search result)


@dataclass(frozen=True)
class RetrievedContext:
    """What the answering layer retrieved for one question, kept in structured form.

    ``uncovered_text`` is strict mode's 知识库中未收录 wording (None in normal mode).
    """

    question: str
    passages: list[Passage]
    uncovered_text: str | None = None


@dataclass
class ChatMessage:
    """One message of a conversation.

    ``retrieved`` is a structured attachment that no provider sends over the wire: the
    answering layer sets it on the message that carries retrieved context, so the offline
    extractive answerer gets the raw question and passages without parsing the prompt back.
    """

    role: Role
    content: str
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    retrieved: RetrievedContext | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise InvalidInput(f"unknown chat message role {self.role!r} (expected one of {', '.join(_ROLES)})")
        if self.role == "tool" and not self.tool_call_id:
            raise InvalidInput("a tool message needs the tool_call_id of the call it answers")
        if self.tool_calls and self.role != "assistant":
            raise InvalidInput("only assistant messages can carry tool calls")

    def to_openai(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            # The API wants null content beside tool calls when the model said nothing.
            msg["content"] = self.content or None
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
                }
                for c in self.tool_calls
            ]
        if self.role == "tool":
            msg["tool_call_id"] = self.tool_call_id
        elif self.name:
            msg["name"] = self.name
        return msg

    def to_ollama(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            # Ollama takes arguments as an object, not a JSON string, and has no call ids.
            msg["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in self.tool_calls]
        if self.role == "tool" and self.name:
            msg["tool_name"] = self.name
        return msg


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallsReady:
    calls: list[ToolCall]


@dataclass(frozen=True)
class Done:
    finish_reason: str  # "stop", "length", "tool_calls", ...
    usage: dict[str, int] | None = None  # {"prompt_tokens": .., "completion_tokens": ..} when the server says


ChatEvent = Union[TextDelta, ToolCallsReady, Done]


@runtime_checkable
class ChatModel(Protocol):
    id: str  # e.g. "openai:qwen2.5-7b-instruct", "ollama:llama3.1", "extractive"
    context_length: int  # tokens the model can see; the answering layer budgets context from it

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None) -> Iterator[ChatEvent]:
        """Yield TextDelta pieces, at most one ToolCallsReady, then exactly one Done. Raises LLMError."""

    def count_tokens(self, text: str) -> int:
        """An estimate of the text's length in the model's tokens."""

    def check(self) -> str:
        """A cheap connectivity test; returns a human message or raises LLMError."""


@dataclass
class ChatResult:
    text: str
    tool_calls: list[ToolCall]
    finish_reason: str
    usage: dict[str, int] | None


def collect(events: Iterable[ChatEvent]) -> ChatResult:
    """Drain a stream into one result (for callers that do not show tokens as they come)."""
    parts: list[str] = []
    calls: list[ToolCall] = []
    done = Done("stop")
    for event in events:
        if isinstance(event, TextDelta):
            parts.append(event.text)
        elif isinstance(event, ToolCallsReady):
            calls.extend(event.calls)
        else:
            done = event
    return ChatResult("".join(parts), calls, done.finish_reason, done.usage)


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (
        0x4E00 <= o <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= o <= 0x4DBF  # extension A
        or 0x3000 <= o <= 0x30FF  # CJK punctuation, kana
        or 0xAC00 <= o <= 0xD7AF  # Hangul
        or 0xFF00 <= o <= 0xFFEF  # full-width forms
        or 0x20000 <= o <= 0x2FFFF
    )


def approx_token_count(text: str) -> int:
    """One token per CJK character, one per four other characters (typical BPE rates)."""
    cjk = sum(1 for ch in text if is_cjk(ch))
    return cjk + math.ceil((len(text) - cjk) / 4)


def server_label(base_url: str) -> str:
    """host[:port] of a base URL, without any user:password part, for error messages."""
    parts = urlsplit(base_url if "://" in base_url else f"http://{base_url}")
    host = parts.hostname or base_url
    return f"{host}:{parts.port}" if parts.port else host


def scrub(text: str, secret: str) -> str:
    """Remove a secret from text bound for a message or a log."""
    return text.replace(secret, "***") if secret else text


def guard_refusal(exc: BaseException | None) -> BlockedAddress | None:
    """The URL guard's refusal of a model server's address, raised as ``exc`` or wrapped by the
    client library (openai turns it into an APIConnectionError)."""
    for _ in range(8):  # a chain is short; a cycle must not hang us
        if exc is None or isinstance(exc, BlockedAddress):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None
