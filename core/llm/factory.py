"""Build the configured chat model from the LLM settings section (the provider registry decides)."""

from __future__ import annotations

from core.errors import InvalidSettings
from core.llm.base import ChatModel
from core.llm.providers import ChatProvider
from core.plugins import CHAT_PROVIDERS, UnknownPlugin
from core.settings.model import LLMSettings


def provider_for(settings: LLMSettings) -> ChatProvider:
    try:
        return CHAT_PROVIDERS.get(settings.provider)
    except UnknownPlugin as exc:  # saved while a plugin provider was installed, and it is gone now
        raise InvalidSettings(str(exc)) from None


def make_chat_model(settings: LLMSettings) -> ChatModel:
    """extractive (default, offline), openai (any OpenAI-compatible server), ollama, or a plugin's."""
    provider = provider_for(settings)
    return provider.make(settings, settings.providers.get(provider.name))


def model_name(settings: LLMSettings) -> str:
    model = settings.model.strip()
    if not model:
        raise InvalidSettings(f"The {settings.provider} LLM provider needs a model name (llm.model).")
    return model
