"""Ollama native chat provider, with the context length (``num_ctx``) sent on every request.

Ollama silently truncates prompts to ``num_ctx`` tokens and defaults to 2048 — too small for
retrieved passages, let alone web pages — so the setting is always sent, and
``needs_context_warning`` tells the admin when it is still that small.

``POST /api/chat`` streams NDJSON: one object a line, ``{"message": {"role", "content",
"tool_calls"}, "done": false}``, then a final ``{"done": true, "done_reason", "prompt_eval_count",
"eval_count", ...}`` — which Ollama's API doc shows without any ``message`` (the ``ollama``
client library requires one, so the stream is read here, through the same guarded HTTP client).
An error is ``{"error": "..."}``: the body of an HTTP error status, or a line inside the stream.
"""

from __future__ import annotations

import json
from typing import Any, Iterator
from urllib.parse import urlsplit

import httpx
import ollama
import pydantic

from core.errors import LLMError
from core.llm.base import (
    DEFAULT_OLLAMA_URL,
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
from core.notices import Notice, notice
from core.parsers.url_transport import service_client, service_client_options

OLLAMA_DEFAULT_NUM_CTX = 2048
OLLAMA_DEFAULT_PORT = 11434


WEB_MIN_NUM_CTX = 8192  # a web page alone is often 4,000-8,000+ tokens after extraction


def needs_context_warning(context_length: int, injecting_context: bool, web: bool = False) -> str | None:
    """The warning to show when Ollama's context is at its 2048 default while RAG content is
    injected, or below 8192 while web content is (``web``); in English (the settings page)."""
    found = context_notice(context_length, injecting_context, web)
    return found.text("en") if found else None


def context_notice(context_length: int, injecting_context: bool, web: bool = False) -> Notice | None:
    """That warning as a notice, said in the question's language beside an answer."""
    if not injecting_context:
        return None
    if web and context_length < WEB_MIN_NUM_CTX:
        return notice("ollama.web_context", n=context_length)
    if context_length > OLLAMA_DEFAULT_NUM_CTX:
        return None
    return notice("ollama.small_context", n=context_length)


class OllamaChatModel:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        temperature: float = 0.2,
        context_length: int = 8192,
        timeout: float = 120.0,
        api_key: str = "",
    ):
        self.base_url = base_url or DEFAULT_OLLAMA_URL
        self.model = model
        self.temperature = temperature
        self.context_length = context_length
        self.timeout = timeout
        self.id = f"ollama:{model}"
        self._api_key = api_key  # for an Ollama behind an authenticating proxy
        self._host = server_label(self.base_url)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
        # through the URL guard (private and loopback fine, link-local/metadata never), no redirects
        self._client = ollama.Client(host=self.base_url, **service_client_options(timeout=timeout, headers=headers))
        self._http = service_client(timeout=timeout, headers=headers, base_url=ollama_root(self.base_url))

    def count_tokens(self, text: str) -> int:
        return approx_token_count(text)

    @property
    def options(self) -> dict[str, Any]:
        return {"num_ctx": self.context_length, "temperature": self.temperature}

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None) -> Iterator[ChatEvent]:
        body: dict[str, Any] = {"model": self.model, "messages": [m.to_ollama() for m in messages], "stream": True,
                                "options": self.options}
        if tools:
            body["tools"] = [t.to_openai() for t in tools]
        try:
            yield from self._events(self._parts(body))
        except LLMError:
            raise
        except Exception as exc:  # every client/transport failure is translated, none swallowed
            raise self._translate(exc) from None

    def _parts(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The streamed objects, one a line; an error status or an error line raised as Ollama's
        client library raises them (``ResponseError``; status -1 inside the stream)."""
        with self._http.stream("POST", "/api/chat", json=body) as response:
            if response.status_code >= 400:
                response.read()
                raise ollama.ResponseError(response.text, response.status_code)
            for line in response.iter_lines():
                if not line.strip():
                    continue
                part = json.loads(line)
                if not isinstance(part, dict):
                    raise ValueError("a streamed line that is not a JSON object")
                if part.get("error"):
                    raise ollama.ResponseError(str(part["error"]))
                yield part

    def _events(self, parts: Iterator[dict[str, Any]]) -> Iterator[ChatEvent]:
        calls: list[ToolCall] = []
        for part in parts:
            msg = part.get("message") or {}  # the final object may carry none
            content = msg.get("content") if isinstance(msg, dict) else None
            if isinstance(content, str) and content:
                yield TextDelta(content)
            for call in (msg.get("tool_calls") if isinstance(msg, dict) else None) or []:
                calls.append(self._tool_call(call, len(calls)))
            if part.get("done"):
                if calls:
                    yield ToolCallsReady(calls)
                prompt, completion = part.get("prompt_eval_count"), part.get("eval_count")
                usage = None
                if isinstance(prompt, int) or isinstance(completion, int):
                    usage = {"prompt_tokens": prompt if isinstance(prompt, int) else 0,
                             "completion_tokens": completion if isinstance(completion, int) else 0}
                # Ollama reports "stop" even when it stops to call tools.
                reason = "tool_calls" if calls else (str(part.get("done_reason") or "") or "stop")
                yield Done(reason, usage)
                return
        raise LLMError(f"The Ollama server at {self._host} ended the answer without finishing it.")

    def _tool_call(self, call: Any, index: int) -> ToolCall:
        # Ollama sends no call ids; the answering layer needs one to pair results with calls.
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise LLMError(f"The Ollama server at {self._host} sent a tool call without a tool name.")
        arguments = function.get("arguments")
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):  # Ollama sends an object, not OpenAI's JSON string
            raise LLMError(f"The model at {self._host} called tool '{name}' with arguments that are not a JSON object.")
        return ToolCall(id=f"call_{index}", name=name, arguments=arguments)

    def check(self) -> str:
        try:
            info = self._client.show(self.model)
        except Exception as exc:
            raise self._translate(exc) from None
        trained = next(
            (v for k, v in (info.modelinfo or {}).items() if k.endswith(".context_length") and isinstance(v, int)), None
        )
        details = info.details
        about = ", ".join(x for x in (details.family, details.parameter_size, details.quantization_level) if x) if details else ""
        msg = f"Connected to Ollama at {self._host}: model '{self.model}'" + (f" ({about})" if about else "") + "."
        msg += f" num_ctx is {self.context_length}"
        msg += f" (the model was trained for {trained})." if trained else "."
        if trained and self.context_length > trained:
            msg += " The setting is larger than the model supports; lower it."
        return msg

    def _translate(self, exc: Exception) -> LLMError:
        host, model = self._host, self.model
        detail = scrub(f"{type(exc).__name__}: {exc}", self._api_key)[:1000]
        blocked = guard_refusal(exc)
        if blocked is not None:  # the URL guard refused the address before connecting
            msg = f"Refused to connect to the model server at {host}: {blocked.message}"
        elif isinstance(exc, httpx.TimeoutException):
            msg = f"Cannot reach the model server at {host}: no answer within {self.timeout:g} s."
        elif isinstance(exc, httpx.RemoteProtocolError):
            msg = f"The model server at {host} dropped the connection in the middle of the answer."
        elif isinstance(exc, (ConnectionError, httpx.TransportError)):
            msg = f"Cannot reach the model server at {host}. Check the base URL and that Ollama is running."
        elif isinstance(exc, ollama.ResponseError):
            status = exc.status_code
            if status == 404:
                msg = f"Model '{model}' was not found on the Ollama server at {host} (run `ollama pull {model}` there)."
            elif status == 401:
                msg = f"The Ollama server at {host} rejected the API key (HTTP 401)."
            elif status == 429:
                msg = f"The Ollama server at {host} is rate limiting requests (HTTP 429). Try again shortly."
            elif status >= 500:
                msg = f"The Ollama server at {host} failed with HTTP {status}: {scrub(str(exc.error), self._api_key)[:300]}"
            elif status == -1:  # an error reported inside the stream
                msg = f"The Ollama server at {host} reported an error: {scrub(str(exc.error), self._api_key)[:300]}"
            else:
                msg = f"The Ollama server at {host} refused the request (HTTP {status}): {scrub(str(exc.error), self._api_key)[:300]}"
        elif isinstance(exc, (ValueError, pydantic.ValidationError)):
            msg = f"The Ollama server at {host} sent a reply that is not valid Ollama chat output."
        else:
            msg = f"The Ollama server at {host} could not be used ({type(exc).__name__})."
        return LLMError(msg, detail=detail)


def ollama_root(base_url: str) -> str:
    """The server root as Ollama's clients read a host (``OLLAMA_HOST``): without a scheme, http
    and port 11434 unless one is given; with one, the URL as it is."""
    if "://" in base_url:
        return base_url.rstrip("/")
    parts = urlsplit(f"http://{base_url}")
    netloc = parts.netloc if parts.port else f"{parts.netloc}:{OLLAMA_DEFAULT_PORT}"
    return f"http://{netloc}{parts.path}".rstrip("/")
