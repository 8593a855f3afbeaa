"""The ``openai`` LLM provider: any OpenAI-compatible server. Registered here, light to import:
the vendor client (slow to load) is imported only when a model is built."""

from __future__ import annotations

from core.errors import InvalidSettings
from core.llm.base import DEFAULT_OPENAI_URL, ChatModel
from core.llm.factory import model_name
from core.llm.providers import ChatProvider, register_provider
from core.settings.fields import reveal


def make(settings, own) -> ChatModel:
    from core.llm.openai_chat import OpenAIChatModel

    model = model_name(settings)
    base_url = settings.base_url.strip() or DEFAULT_OPENAI_URL
    api_key = reveal(settings.api_key)
    if base_url == DEFAULT_OPENAI_URL and not api_key:
        raise InvalidSettings("OpenAI's own API needs an API key (llm.api_key); local servers need a base URL.")
    return OpenAIChatModel(base_url=base_url, api_key=api_key, model=model, temperature=settings.temperature,
                           timeout=settings.timeout_seconds, context_length=settings.context_length)


register_provider(ChatProvider("openai", make))
