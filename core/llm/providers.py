"""The LLM provider plugin type: what the registry holds for each ``llm.provider`` name.

Capability questions are attributes here (and on the chat model: ``quotes_only``), so callers
never test a provider's name or a model's class."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.llm.base import ChatModel
from core.plugins import CHAT_PROVIDERS


@dataclass(frozen=True)
class ChatProvider:
    """``make(llm_settings, own_settings)``: the chat model (``own_settings``: an instance of
    ``settings`` from ``llm.providers.<name>``, or None). ``quotes_only``: the models only quote the
    passages (no language model: strict mode's "LLM never called" holds, web search gets no
    generated queries). ``small_default_context``: the server's default context window is small
    (Ollama's 2048) and ``llm.context_length`` must be raised when context is injected."""

    name: str
    make: Callable[[Any, Any], ChatModel]
    settings: type | None = None
    quotes_only: bool = False
    small_default_context: bool = False


def register_provider(provider: ChatProvider) -> ChatProvider:
    return CHAT_PROVIDERS.register(provider.name, provider)


def quotes_only(model: ChatModel | None) -> bool:
    """The model only quotes passages (the offline extractive answerer, or a plugin like it)."""
    return bool(getattr(model, "quotes_only", False))
