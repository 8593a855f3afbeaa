"""OpenAI-compatible models and chat completions.

``model`` is ``ragdesk`` (every knowledge base the token's user may read) or ``ragdesk:<kb name>``.
The question is the last user message; the answer runs exactly as the chat's (``Engine.ask``,
nothing stored): strict mode, its fixed no-hit reply without a model call, and the Web search rules
all hold. Its citations are ``[n]`` in the content and in full in the extra ``citations`` field.

The messages before it are the conversation: in normal mode they are the answer's history, as a
saved chat's are (a follow-up is searched with them); strict mode answers the last question on
its own and says so in the notices. A client's system and tool messages are not used (the
prompt is the admin's template).
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.api.models import CitationOut, Mode
from core.api.registry import operation
from core.errors import InvalidInput, NotFound

TAG = "OpenAI-compatible"
MODEL = "ragdesk"


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "ragdesk"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


class ModelsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):  # [{"type": "text", "text": ...}, ...]
            return "\n".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


class CompletionIn(BaseModel):
    # Other OpenAI parameters (temperature, max_tokens, user, ...) are accepted and not used:
    # the answer's model and its settings are the admin's.
    model_config = ConfigDict(extra="ignore")
    model: str = MODEL
    messages: list[ChatMessageIn] = Field(min_length=1)
    stream: bool = False
    mode: Mode | None = Field(None, description="ragdesk: normal or strict (strict mode on: strict for non-admins)")
    web: bool = Field(False, description="ragdesk: the chat's Web search switch (normal mode only)")


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


def _kbs_for(model: str) -> list[str] | None:
    if model == MODEL:
        return None
    if model.startswith(MODEL + ":") and model[len(MODEL) + 1:].strip():
        return [model[len(MODEL) + 1:]]
    raise NotFound(f"model '{model}' not found: use '{MODEL}' or '{MODEL}:<knowledge base name>'")


@operation("openai_models", "GET", "/v1/models", input=ModelsIn, output=ModelList, tag=TAG,
           summary="'ragdesk' and 'ragdesk:<kb>' for each knowledge base you may read")
def models(engine, actor, _: ModelsIn) -> ModelList:
    names = [MODEL] + [f"{MODEL}:{kb.name}" for kb in engine.list_kbs(actor)]
    return ModelList(data=[ModelOut(id=n) for n in names])


@operation("openai_chat", "POST", "/v1/chat/completions", input=CompletionIn, output=CompletionOut, tag=TAG,
           streams=True,
           summary="Chat completion (stream or not) answered from the knowledge bases, citations included; "
                   "earlier messages are the conversation (normal mode)",
           example={"model": MODEL, "messages": [{"role": "user", "content": "How many days may I work remotely?"}]})
def chat_completion(engine, actor, data: CompletionIn, on_event=None) -> CompletionOut:
    turns = [(m.role, m.text()) for m in data.messages]
    last = max((i for i, (role, text) in enumerate(turns) if role == "user" and text.strip()), default=None)
    if last is None:
        raise InvalidInput("messages: no user message with text to answer")
    answer = engine.ask(actor, turns[last][1], kbs=_kbs_for(data.model), mode=data.mode, temporary=True, web=data.web,
                        history=tuple(turns[:last]), on_event=on_event)
    facts = AnswerFacts(mode=answer.mode, hit=answer.hit, llm_called=answer.llm_called, from_kb=answer.from_kb,
                        notices=list(answer.notices), error=answer.error)
    return CompletionOut(id=f"chatcmpl-{uuid.uuid4().hex}", created=int(time.time()), model=data.model,
                         choices=[Choice(message=AssistantMessage(content=answer.text or answer.error),
                                         finish_reason="stop")],
                         citations=[CitationOut.model_validate(c) for c in answer.citations], ragdesk=facts)
