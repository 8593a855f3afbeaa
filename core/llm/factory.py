"""Build the configured chat model from the LLM settings section."""

from __future__ import annotations

from core.errors import InvalidSettings
from core.llm.base import DEFAULT_OLLAMA_URL, DEFAULT_OPENAI_URL, ChatModel
from core.llm.extractive import ExtractiveAnswerer
from core.settings.model import LLMSettings

# The vendor clients are imported only for the provider in use: together they take ~1.4 s to load.


def make_chat_model(settings: LLMSettings) -> ChatModel:
    """extractive (default, offline), openai (any OpenAI-compatible server) or ollama (native API)."""
    if settings.provider == "extractive":
        return ExtractiveAnswerer(context_length=settings.context_length)
    model = settings.model.strip()
    if not model:
        raise InvalidSettings(f"The {settings.provider} LLM provider needs a model name (llm.model).")
    if settings.provider == "openai":
        from core.llm.openai_chat import OpenAIChatModel

        base_url = settings.base_url.strip() or DEFAULT_OPENAI_URL
        if base_url == DEFAULT_OPENAI_URL and not settings.api_key:
            raise InvalidSettings("OpenAI's own API needs an API key (llm.api_key); local servers need a base URL.")
        return OpenAIChatModel(
            base_url=base_url,
            api_key=settings.api_key,
            model=model,
            temperature=settings.temperature,
            timeout=settings.timeout_seconds,
            context_length=settings.context_length,
        )
    if settings.provider == "ollama":
        from core.llm.ollama_chat import OllamaChatModel

        return OllamaChatModel(
            base_url=settings.base_url.strip() or DEFAULT_OLLAMA_URL,
            model=model,
            temperature=settings.temperature,
            context_length=settings.context_length,
            timeout=settings.timeout_seconds,
            api_key=settings.api_key,
        )
    raise InvalidSettings(f"Unknown LLM provider {settings.provider!r} (expected extractive, openai or ollama).")
