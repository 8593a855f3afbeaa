"""Chat models: the ``ChatModel`` protocol, OpenAI-compatible and Ollama providers, and the
offline extractive answerer used when no language model is configured.

The providers live in ``core.llm.openai_chat`` / ``core.llm.ollama_chat`` (with
``needs_context_warning``) and are not imported here: their vendor clients are slow to load.
"""

from core.llm.base import (
    ChatEvent,
    ChatMessage,
    ChatModel,
    ChatResult,
    Done,
    Passage,
    RetrievedContext,
    TextDelta,
    ToolCall,
    ToolCallsReady,
    ToolSpec,
    approx_token_count,
    collect,
)
from core.llm.extractive import ExtractiveAnswer, ExtractiveAnswerer, Quote
from core.llm.factory import make_chat_model

__all__ = [
    "ChatEvent", "ChatMessage", "ChatModel", "ChatResult", "Done", "ExtractiveAnswer", "ExtractiveAnswerer",
    "Passage", "Quote", "RetrievedContext", "TextDelta", "ToolCall", "ToolCallsReady", "ToolSpec",
    "approx_token_count", "collect", "make_chat_model",
]
