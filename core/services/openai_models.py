"""The OpenAI-compatible API's wire shapes (pydantic): models, chat completion in and out."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.services.outputs import CitationOut, Mode

MODEL = "ragdesk"
MAX_MESSAGES = 1000  # turns of one conversation a client may send
MAX_CONTENT_PARTS = 100  # parts of one message's content


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "ragdesk"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: str
    content: str | Annotated[list[dict[str, Any]], Field(max_length=MAX_CONTENT_PARTS)] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):  # [{"type": "text", "text": ...}, ...]
            return "\n".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: str = "stop"


class AnswerFacts(BaseModel):
    mode: Mode
    hit: bool
    llm_called: bool
    from_kb: bool
    notices: list[str]
    error: str = ""


class CompletionOut(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: dict[str, int] = Field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})
    citations: list[CitationOut] = Field(default_factory=list, description="ragdesk: the [n] sources in full")
    ragdesk: AnswerFacts
