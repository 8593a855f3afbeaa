"""OpenAI-compatible chat provider (OpenAI, vLLM, llama.cpp server, DeepSeek, Qwen, ...).

Uses the official ``openai`` client with streaming. Tool-call arguments arrive as JSON string
fragments spread over many chunks; they are joined per call index and parsed once the stream
ends. Every failure becomes an ``LLMError`` whose message names the server (never the key).
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import openai

from core.errors import LLMError
from core.llm.base import (
    DEFAULT_OPENAI_URL,
    ChatEvent,
    ChatMessage,
    Done,
    TextDelta,
    ToolCall,
    ToolCallsReady,
    ToolSpec,
    approx_token_count,
    guard_refusal,
    scrub,
    server_label,
)
from core.parsers.url_transport import service_client

# Local servers (vLLM, llama.cpp) accept any key, but the client refuses to start without one.
PLACEHOLDER_KEY = "no-key"


class OpenAIChatModel:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        model: str,
        temperature: float = 0.2,
        timeout: float = 120.0,
        context_length: int = 8192,
        max_retries: int = 0,
        include_usage: bool = True,
    ):
        self.base_url = base_url or DEFAULT_OPENAI_URL
        self.model = model
        self.temperature = temperature
        self.timeout = timeout
        self.context_length = context_length
        self.id = f"openai:{model}"
        # Off by default: a failure reaches the chat at once instead of after silent back-off.
        self._api_key = api_key
        self._include_usage = include_usage
        self._host = server_label(self.base_url)
        # through the URL guard: a private or loopback server is fine, link-local/metadata never
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=api_key or PLACEHOLDER_KEY, timeout=timeout, max_retries=max_retries,
            http_client=service_client(timeout=timeout),
        )

    def count_tokens(self, text: str) -> int:
        return approx_token_count(text)

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None) -> Iterator[ChatEvent]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_openai() for m in messages],
            "temperature": self.temperature,
            "stream": True,
        }
        if tools:
            kwargs["tools"] = [t.to_openai() for t in tools]
        if self._include_usage:
            kwargs["stream_options"] = {"include_usage": True}
        started = False
        try:
            for event in self._events(self._open_stream(kwargs)):
                started = True
                yield event
        except LLMError:
            raise
        except Exception as exc:  # every client/transport failure is translated, none swallowed
            raise self._translate(exc, mid_answer=started) from None

    def _open_stream(self, kwargs: dict[str, Any]) -> Any:
        """The chat stream. A server that rejects ``stream_options`` (an older vLLM or Azure API
        version, servers that refuse fields they do not know) is asked again without it, and not
        sent it again by this client: token counts are then missing, the answer is not. A server
        that ignores ``stream`` and sends the whole completion as JSON is read as one chunk."""
        try:
            raw = self._client.chat.completions.with_raw_response.create(**kwargs)
        except openai.BadRequestError as exc:
            if "stream_options" not in kwargs or "stream_options" not in str(exc):
                raise
            self._include_usage = False
            kwargs = {k: v for k, v in kwargs.items() if k != "stream_options"}
            raw = self._client.chat.completions.with_raw_response.create(**kwargs)
        if raw.headers.get("content-type", "").split(";")[0].strip() == "application/json":
            # a server that does not stream (it answers whole, whatever "stream" says): one chunk
            return [_whole_as_chunk(raw.http_response.read(), self._host)]
        return raw.parse()

    def _events(self, chunks: Any) -> Iterator[ChatEvent]:
        pending: dict[int, dict[str, str]] = {}  # tool-call index -> id, name, argument text so far
        finish: str | None = None
        usage: dict[str, int] | None = None
        seen_chunk = False
        for chunk in chunks:
            seen_chunk = True
            if chunk.usage is not None:
                usage = {"prompt_tokens": chunk.usage.prompt_tokens, "completion_tokens": chunk.usage.completion_tokens}
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            delta = choice.delta
            if delta is not None:
                if delta.content:
                    yield TextDelta(delta.content)
                for frag in delta.tool_calls or []:
                    # A few servers omit the index; each of their fragments is then a whole call.
                    index = frag.index if frag.index is not None else len(pending)
                    call = pending.setdefault(index, {"id": "", "name": "", "arguments": ""})
                    call["id"] = frag.id or call["id"]
                    if frag.function is not None:
                        call["name"] += frag.function.name or ""
                        call["arguments"] += frag.function.arguments or ""
            finish = choice.finish_reason or finish
        if not seen_chunk:
            # e.g. a base URL that serves a web page: no SSE events at all, not an empty answer.
            raise LLMError(
                f"The model server at {self._host} sent no chat output. Check that the base URL is the API root "
                "(it usually ends in /v1)."
            )
        if pending:
            yield ToolCallsReady([self._parse_call(i, pending[i]) for i in sorted(pending)])
            finish = "tool_calls"  # some servers say "stop" here; callers should not have to care
        yield Done(finish or "stop", usage)

    def _parse_call(self, index: int, call: dict[str, str]) -> ToolCall:
        name = call["name"]
        if not name:
            raise LLMError(f"The model at {self._host} sent a tool call without a tool name.")
        try:
            arguments = json.loads(call["arguments"]) if call["arguments"].strip() else {}
        except ValueError:
            raise LLMError(
                f"The model at {self._host} called tool '{name}' with arguments that are not valid JSON.",
                detail=call["arguments"][:500],
            ) from None
        if not isinstance(arguments, dict):
            raise LLMError(f"The model at {self._host} called tool '{name}' with arguments that are not a JSON object.")
        return ToolCall(id=call["id"] or f"call_{index}", name=name, arguments=arguments)

    def check(self) -> str:
        try:
            available = [m.id for m in self._client.models.list()]
        except openai.NotFoundError:
            # Some compatible servers have no /models route: one tiny completion proves the rest.
            try:
                self._client.chat.completions.create(
                    model=self.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1
                )
            except Exception as exc:
                raise self._translate(exc) from None
            return f"Connected to {self._host}: model '{self.model}' answered."
        except Exception as exc:
            raise self._translate(exc) from None
        if self.model not in available:
            shown = ", ".join(available[:10]) + (" ..." if len(available) > 10 else "")
            raise LLMError(
                f"Connected to {self._host}, but it does not offer model '{self.model}'. "
                f"Available: {shown or 'none'}."
            )
        return f"Connected to {self._host}: model '{self.model}' is available ({len(available)} models offered)."

    def _translate(self, exc: Exception, *, mid_answer: bool = False) -> LLMError:
        host, model = self._host, self.model
        detail = scrub(f"{type(exc).__name__}: {exc}", self._api_key)[:1000]
        blocked = guard_refusal(exc)
        if blocked is not None:  # the URL guard refused the address before connecting
            msg = f"Refused to connect to the model server at {host}: {blocked.message}"
        elif isinstance(exc, openai.APITimeoutError):
            msg = f"Cannot reach the model server at {host}: no answer within {self.timeout:g} s."
        elif isinstance(exc, openai.APIConnectionError) and mid_answer:
            msg = f"The model server at {host} dropped the connection in the middle of the answer."
        elif isinstance(exc, openai.APIConnectionError):
            msg = f"Cannot reach the model server at {host}. Check the base URL and that the server is running."
        elif isinstance(exc, openai.AuthenticationError):
            msg = f"The model server at {host} rejected the API key (HTTP 401). Check the key in the LLM settings."
        elif isinstance(exc, openai.PermissionDeniedError):
            msg = f"The API key is not allowed to use model '{model}' at {host} (HTTP 403)."
        elif isinstance(exc, openai.NotFoundError):
            msg = (
                f"Model '{model}' was not found at {host} (HTTP 404). Check the model name, and that the "
                "base URL is the API root (it usually ends in /v1)."
            )
        elif isinstance(exc, openai.RateLimitError):
            # OpenAI answers 429 both for a rate limit and for a spent quota (insufficient_quota): its words tell which
            reason = scrub(_server_message(exc), self._api_key)[:300]
            after = _retry_after(exc)
            msg = (f"The model server at {host} is rate limiting requests or the quota is used up (HTTP 429)"
                   + (f": {reason.rstrip('.')}." if reason else ".")
                   + (f" Try again in {after} s." if after else " Try again shortly."))
        elif isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
            msg = f"The model server at {host} failed with HTTP {exc.status_code}. Try again, or check the server's logs."
        elif isinstance(exc, openai.APIStatusError):
            reason = scrub(_server_message(exc), self._api_key)[:300]
            msg = f"The model server at {host} refused the request (HTTP {exc.status_code}): {reason}"
        elif isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIResponseValidationError):
            # an error event inside a 200 stream (``data: {"error": {"message": ...}}``), as vLLM,
            # LiteLLM and OpenAI send when generation fails after the response started
            reason = scrub(_server_message(exc), self._api_key)[:300]
            where = " in the middle of the answer" if mid_answer else ""
            msg = f"The model server at {host} reported an error{where}: {reason}"
        elif isinstance(exc, (ValueError, openai.APIResponseValidationError)):
            msg = f"The model server at {host} sent a reply that is not valid OpenAI chat output."
        else:
            msg = f"The model server at {host} could not be used ({type(exc).__name__})."
        return LLMError(msg, detail=detail)


def _server_message(exc: "openai.APIError") -> str:
    """The server's own words: ``{"error": {"message"}}`` (the OpenAI shape), ``{"error": "..."}``,
    or, for an error event in a stream, the event's ``error`` object or string itself."""
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str) and err.strip():
            return err
    if isinstance(body, str) and body.strip():
        return body
    return exc.message


def _retry_after(exc: "openai.APIStatusError") -> int | None:
    """Whole seconds from the answer's ``Retry-After`` (seconds form), when it has one."""
    try:
        seconds = float(exc.response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return max(1, round(seconds)) if seconds >= 0 else None


def _whole_as_chunk(body: bytes, host: str) -> Any:
    """A whole ``chat.completion`` (JSON) as the one stream chunk that says the same: its message
    as the delta, its tool calls indexed, its usage."""
    from openai.types.chat import ChatCompletionChunk

    try:
        whole = json.loads(body)
        choices = [{"index": c.get("index", 0), "finish_reason": c.get("finish_reason"),
                    "delta": {"role": "assistant", "content": (c.get("message") or {}).get("content"),
                              "tool_calls": [dict(call, index=i) for i, call in
                                             enumerate((c.get("message") or {}).get("tool_calls") or [])] or None}}
                   for c in whole.get("choices") or []]
        return ChatCompletionChunk.model_validate({
            "id": whole.get("id") or "whole", "object": "chat.completion.chunk", "created": whole.get("created") or 0,
            "model": whole.get("model") or "", "choices": choices, "usage": whole.get("usage")})
    except (ValueError, TypeError, AttributeError) as exc:
        raise LLMError(f"The model server at {host} sent a JSON answer that is not a chat completion.",
                       detail=body[:500].decode("utf-8", "replace")) from exc
