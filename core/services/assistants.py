"""Assistants (core/assistants/): named presets of knowledge bases, mode, thresholds, top-k, prompt,
refusal text and metadata filter, owned and shared like a knowledge base; asking through one applies its
preset for the caller's share of its knowledge bases (never more), under the global strict policy. Its
filter is part of the scope: in strict mode nothing inside it answering gives the refusal text, no model call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field

from core.answering.types import Answer, AnswerEvent, Comparison
from core.services.outputs import AnswerOut, Deleted
from core.assistants import cli_text, preset, store
from core.assistants.types import AssistantView
from core.services.answers import MAX_KBS, WHERE_HELP, _answered
from core.services.cli_groups import ASSISTANTS
from core.services.declare import Cli, Http, operation
from core.services.runtime import Runtime
from core.types import Actor

TAG = "assistants"
_ONE = "/api/v1/assistants/{assistant}"
Kbs = Annotated[list[str], Field(max_length=MAX_KBS, description="knowledge base ids or names; []: every one "
                                                                 "the caller may read")]
Similarity = Annotated[float | None, Field(ge=0, le=1)]
TopK = Annotated[int | None, Field(ge=1, le=50)]
Text = Annotated[str | None, Field(max_length=store.MAX_TEXT_CHARS)]
Users = Annotated[list[str] | None, Field(max_length=1000, description="user names it is shared with")]
Visibility = Literal["private", "shared", "public"]
Mode = Literal["strict", "normal"]
Clearable = Literal["strict_min_similarity", "normal_min_similarity", "top_k", "prompt", "refusal_text", "where"]
Where = Annotated[dict[str, Any] | None, Field(description="on every question asked through it: " + WHERE_HELP
                                                          + "; each field must be in one of its knowledge bases")]


class AssistantService:
    def __init__(self, rt: Runtime, answers):
        self._rt, self._answers = rt, answers

    def _view(self, actor: Actor, ref: str) -> AssistantView:
        with self._rt.db.read() as s:
            return store.view(s, actor, store.resolve(s, actor, ref))

    @operation(handoff=True, http=Http("GET", "/api/v1/assistants", out=list[AssistantView], tag=TAG,
                                       summary="The assistants you may use (yours, shared with you, public)"),
               cli=Cli("list", group=ASSISTANTS, help="the assistants (as the local admin: all of them)",
                       human=cli_text.listing_text))
    def list_assistants(self, actor: Actor) -> list[AssistantView]:
        with self._rt.db.read() as s:
            return [store.view(s, actor, a) for a in store.usable(s, actor)]

    @operation(handoff=True, http=Http("GET", _ONE, out=AssistantView, tag=TAG,
                                       summary="One assistant you may use"),
               cli=Cli("show", group=ASSISTANTS, help="one assistant's preset", args={"assistant": cli_text.NAME},
                       human=cli_text.details_text))
    def get_assistant(self, actor: Actor, assistant: str) -> AssistantView:
        return self._view(actor, assistant)

    @operation(handoff=True, http=Http("DELETE", _ONE, out=Deleted, tag=TAG,
                                       reply=lambda asked, _: {"deleted": asked["assistant"]},
                                       summary="Delete an assistant (its owner or an admin); its knowledge bases stay"),
               cli=Cli("delete", group=ASSISTANTS, help="delete an assistant", args={"assistant": cli_text.NAME},
                       reply=lambda asked, _: {"deleted": asked["assistant"]},
                       human=lambda r: f"deleted assistant {r['deleted']}"))
    def delete_assistant(self, actor: Actor, assistant: str) -> None:
        store.remove(self._rt.db, actor, assistant)

    # list, show, delete, create, update: in this order, and create's and update's keyword parameters in theirs,
    # because the CLI's help lists them so (core/cli/derived.py)
    @operation(handoff=True, http=Http("POST", "/api/v1/assistants", out=AssistantView, tag=TAG, status_code=201,
                                       example={"name": "hr-bot", "kbs": []},
                                       summary="Create an assistant (you own it): its knowledge bases (each one you "
                                               "may read), mode, thresholds, top-k, prompt, refusal text and "
                                               "metadata filter"),
               cli=Cli("create", group=ASSISTANTS, help="create an assistant", args=cli_text.PRESET,
                       human=cli_text.details_text))
    def create_assistant(self, actor: Actor, name: str, kbs: Kbs, *, mode: Mode = "strict",
                         strict_min_similarity: Similarity = None, normal_min_similarity: Similarity = None,
                         top_k: TopK = None, prompt: Text = None, refusal_text: Text = None, description: str = "",
                         visibility: Visibility = "private", shared_with: Users = None,
                         where: Where = None) -> AssistantView:
        a = store.create(self._rt.db, actor, name, kbs=kbs, description=description, visibility=visibility,
                         shared_with=shared_with, mode=mode, strict_min_similarity=strict_min_similarity,
                         normal_min_similarity=normal_min_similarity, top_k=top_k, prompt=prompt,
                         refusal_text=refusal_text, where=where)
        return self._view(actor, a.id)

    @operation(handoff=True, http=Http("POST", _ONE, out=AssistantView, tag=TAG,
                                       summary="Change an assistant (its owner or an admin); omitted fields stay, "
                                               "'clear' puts tuning fields back to the global settings"),
               cli=Cli("update", group=ASSISTANTS, help="change an assistant (options given change, others stay)",
                       args=cli_text.CHANGES, human=cli_text.details_text))
    def update_assistant(self, actor: Actor, assistant: str, *, name: str | None = None,
                         clear: list[Clearable] | None = None, kbs: Kbs | None = None, mode: Mode | None = None,
                         strict_min_similarity: Similarity = None, normal_min_similarity: Similarity = None,
                         top_k: TopK = None, prompt: Text = None, refusal_text: Text = None,
                         description: str | None = None, visibility: Visibility | None = None,
                         shared_with: Users = None, where: Where = None) -> AssistantView:
        a = store.update(self._rt.db, actor, assistant, dict(
            name=name, description=description, kbs=kbs, visibility=visibility, mode=mode,
            strict_min_similarity=strict_min_similarity, normal_min_similarity=normal_min_similarity, top_k=top_k,
            prompt=prompt, refusal_text=refusal_text, shared_with=shared_with, where=where, clear=clear))
        return self._view(actor, a.id)

    @operation(handoff=True, http=Http("POST", _ONE + "/ask", params=("assistant", "question", "web"),
                                       fixed={"temporary": True}, out=AnswerOut, tag=TAG, pool="answer",
                                       reply=_answered, example={"question": "How many days may I work remotely?"},
                                       summary="Answer with an assistant's preset, from its knowledge bases you may "
                                               "read (the others are left out, and said so); nothing is stored. With "
                                               "the global strict policy on, a plain user's answer is strict"))
    def ask_assistant(self, actor: Actor, assistant: str, question: Annotated[str, Field(min_length=1)], *,
                      chat_id: str | None = None, temporary: bool = False, web: bool = False,
                      history: tuple[tuple[str, str], ...] = (),
                      on_event: Callable[[AnswerEvent], None] | None = None) -> Answer:
        return self._answers.ask(actor, question, assistant=assistant, chat_id=chat_id, temporary=temporary, web=web,
                                 history=history, on_event=on_event)

    @operation(handoff=True)
    def compare_assistant(self, actor: Actor, assistant: str, question: Annotated[str, Field(min_length=1)],
                          web: bool = False) -> Comparison:
        """The Strict A/B compare through an assistant: both modes with its knowledge bases (the
        caller's share), thresholds, top-k, prompt, refusal text and filter. Like ``compare``, for those
        who may see normal answers while strict mode is on (admins, ``strict.compare_roles``)."""
        t = preset.tuning(self._rt.db, actor, assistant)
        return self._answers.compare_tuned(actor, question, t.kb_ids, web=web, where=t.where, tune=t.tune,
                                           confine=True, said=t.said)
