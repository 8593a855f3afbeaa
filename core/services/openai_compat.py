"""The OpenAI-compatible models and chat completions (``/v1/models``, ``/v1/chat/completions``).

``model`` is ``ragdesk`` (every knowledge base the caller may read), ``ragdesk:<kb name>``, or
``assistant:<name>`` (an assistant the caller may use: its preset, core/services/assistants.py).
The question is the last user message; the answer runs exactly as the chat's (``ask``, nothing
stored): strict mode, its fixed no-hit reply without a model call, and the Web search rules all
hold. Its citations are ``[n]`` in the content and in full in the extra ``citations`` field.

The messages before it are the conversation: in normal mode they are the answer's history, as a
saved chat's are (a follow-up is searched with them); strict mode answers the last question on
its own and says so in the notices. A client's system and tool messages are not used (the
prompt is the admin's template). ``where`` (or ``filter``) in the body is a metadata filter,
as the ask API's. Other OpenAI parameters (temperature, max_tokens, user, ...)
are accepted and not used: the answer's model and its settings are the admin's.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from core import knowledge
from core.services.outputs import CitationOut, Mode
from core.services.openai_models import (
    MAX_MESSAGES,
    MODEL,
    AnswerFacts,
    AssistantMessage,
    ChatMessageIn,
    Choice,
    CompletionOut,
    ModelList,
    ModelOut,
)
from core.errors import InvalidInput, NotFound
from core.services.answers import WHERE_HELP, failed_answer
from core.services.declare import Http, operation
from core.services.runtime import Runtime
from core.types import Actor

TAG = "OpenAI-compatible"
ASSISTANT = "assistant:"


def _kbs_for(model: str) -> list[str] | None:
    if model == MODEL:
        return None
    if model.startswith(MODEL + ":") and model[len(MODEL) + 1:].strip():
        return [model[len(MODEL) + 1:]]
    raise NotFound(f"model '{model}' not found: use '{MODEL}', '{MODEL}:<knowledge base name>' or "
                   f"'{ASSISTANT}<assistant name>'")


class OpenAICompatService:
    def __init__(self, rt: Runtime, answers, assistants=None):
        self._rt, self._answers, self._assistants = rt, answers, assistants

    @operation(http=Http("GET", "/v1/models", out=ModelList, tag=TAG,
                         summary="'ragdesk', 'ragdesk:<kb>' for each knowledge base you may read and "
                                 "'assistant:<name>' for each assistant you may use"))
    def openai_models(self, actor: Actor) -> ModelList:
        names = [MODEL] + [f"{MODEL}:{kb.name}" for kb in knowledge.list_kbs(self._rt.db, actor)]
        if self._assistants is not None:
            names += [ASSISTANT + a.name for a in self._assistants.list_assistants(actor)]
        return ModelList(data=[ModelOut(id=n) for n in names])

    @operation(http=Http("POST", "/v1/chat/completions", name="openai_chat", out=CompletionOut, tag=TAG,
                         streams=True, extra="ignore", pool="answer", max_body_kb=4096,
                         summary="Chat completion (stream or not) answered from the knowledge bases, citations "
                                 "included; earlier messages are the conversation (normal mode)",
                         example={"model": MODEL,
                                  "messages": [{"role": "user", "content": "How many days may I work remotely?"}]}))
    def openai_chat(self, actor: Actor,
                    messages: Annotated[list[ChatMessageIn], Field(min_length=1, max_length=MAX_MESSAGES)],
                    model: str = MODEL, stream: bool = False,
                    mode: Annotated[Mode | None, Field(description="ragdesk: normal or strict (strict mode on: "
                                                                   "strict for non-admins)")] = None,
                    web: Annotated[bool, Field(description="ragdesk: the chat's Web search switch "
                                                           "(normal mode only)")] = False,
                    where: Annotated[dict[str, Any] | None, Field(description="ragdesk: " + WHERE_HELP)] = None,
                    filter: Annotated[dict[str, Any] | None, Field(description="ragdesk: the same as where")] = None,
                    on_event: Callable[[Any], None] | None = None) -> CompletionOut:
        """``stream`` is the transport's (the API sends events); the answer is the same. ``where``
        (or ``filter``: unknown fields are dropped here, so a filter under either name is never lost)
        narrows the answer's scope to files whose metadata matches."""
        if where and filter:
            raise InvalidInput("give the metadata filter once: 'where' or 'filter', not both")
        turns = [(m.role, m.text()) for m in messages]
        last = max((i for i, (role, text) in enumerate(turns) if role == "user" and text.strip()), default=None)
        if last is None:
            raise InvalidInput("messages: no user message with text to answer")
        if model.startswith(ASSISTANT) and self._assistants is not None:  # its preset sets the mode
            if where or filter:
                raise InvalidInput("a metadata filter cannot be combined with an assistant model: the assistant's "
                                   "own filter applies")
            answer = self._assistants.ask_assistant(actor, model[len(ASSISTANT):], turns[last][1], temporary=True,
                                                    web=web, history=tuple(turns[:last]), on_event=on_event)
        else:
            answer = self._answers.ask(actor, turns[last][1], kbs=_kbs_for(model), mode=mode, temporary=True,
                                       web=web, history=tuple(turns[:last]), on_event=on_event, where=where or filter)
        if answer.error:  # an HTTP error (503 for a store that cannot be reached), never the assistant's words
            raise failed_answer(answer)
        facts = AnswerFacts(mode=answer.mode, hit=answer.hit, llm_called=answer.llm_called, from_kb=answer.from_kb,
                            notices=list(answer.notices), error=answer.error)
        return CompletionOut(id=f"chatcmpl-{uuid.uuid4().hex}", created=int(time.time()), model=model,
                             choices=[Choice(message=AssistantMessage(content=answer.text),
                                             finish_reason="stop")],
                             citations=[CitationOut.model_validate(c) for c in answer.citations], ragdesk=facts)
