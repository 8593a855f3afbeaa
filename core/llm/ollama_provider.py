"""The ``ollama`` LLM provider (native API, context length as ``num_ctx``). Light to import: the
vendor client is imported only when a model is built."""

from __future__ import annotations

from core.llm.base import DEFAULT_OLLAMA_URL, ChatModel
from core.llm.factory import model_name
from core.llm.providers import ChatProvider, register_provider
from core.settings.fields import reveal


def make(settings, own) -> ChatModel:
    from core.llm.ollama_chat import OllamaChatModel

    return OllamaChatModel(base_url=settings.base_url.strip() or DEFAULT_OLLAMA_URL, model=model_name(settings),
                           temperature=settings.temperature, context_length=settings.context_length,
                           timeout=settings.timeout_seconds, api_key=reveal(settings.api_key))


# Ollama's own default context window is 2048 tokens: injected passages are cut unless raised
register_provider(ChatProvider("ollama", make, small_default_context=True))
