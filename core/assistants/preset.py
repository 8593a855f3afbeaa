"""An assistant applied to one question: the caller's share of its knowledge bases, and the settings it tunes.

Access is never widened: each of the assistant's knowledge bases is checked for the caller at the
moment of asking. One the caller may not read (never shared with them, made private since, or
deleted) is left out, and the answer says how many were left out without naming them. When none
is left — or none of those left has a field of the assistant's filter — the scope is empty, never
widened to every knowledge base the caller may read: nothing is searched, so strict mode gives its
refusal text with no model call and normal mode answers without knowledge-base context, each with
a notice saying why. An assistant with no knowledge bases listed answers, like the plain
``ask``, from every knowledge base its caller may read.

The preset changes only the answer's tuning: thresholds, top-k, the prompt template and the
strict no-hit reply (a plain user's assistant may raise the strict threshold, never lower it
below the admin's global one). It never touches ``strict.rag_strict_mode``: with that global policy on,
a plain user's answer through a normal-mode assistant is still strict (core/answering/policy.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from core.accounts.access import can_read_kb
from core.assistants import store
from core.assistants.models import Assistant
from core.db.database import Database
from core.db.models import KnowledgeBase, User
from core.metadata.store import missing_fields
from core.notices import Notice, notice
from core.settings.model import Settings
from core.types import SYSTEM_ACTOR, Actor


@dataclass(frozen=True)
class Scope:
    kb_ids: list[str] | None  # None: every knowledge base the caller may read; []: none (nothing is searched)
    left_out: int  # the assistant's knowledge bases the caller may not read
    empty: Notice | None = None  # why nothing is searched (kb_ids == [])


def caller_scope(session: Session, actor: Actor, a: Assistant) -> Scope:
    left_out, readable = 0, None
    if a.kb_ids:
        kbs = [session.get(KnowledgeBase, kb_id) for kb_id in a.kb_ids]
        readable = [kb.id for kb in kbs if kb is not None and can_read_kb(session, actor, kb)]
        left_out = len(kbs) - len(readable)
        if not readable:
            return Scope([], left_out, notice("assistant.no_readable_kb"))
    missing = missing_fields(session, actor, a.where, readable)
    if missing:  # nothing the caller may read is inside the filter: no widening, no error, an empty scope
        return Scope([], left_out, notice("assistant.no_filter_field", fields=", ".join(missing)))
    return Scope(readable, left_out)


def scope_notices(scope: Scope) -> tuple[Notice, ...]:
    """What the answer says about the caller's share of the assistant, first among its notices."""
    left_out = (notice("assistant.left_out", n=scope.left_out),) if scope.left_out else ()
    return left_out + ((scope.empty,) if scope.empty is not None else ())


def owner_is_admin(session: Session, a: Assistant) -> bool:
    if a.owner_id == SYSTEM_ACTOR.user_id:  # made by the CLI, the local admin
        return True
    owner = session.get(User, a.owner_id)
    return owner is not None and owner.role == "admin"


def tuned(settings: Settings, a: Assistant, by_admin: bool) -> Settings:
    """The settings of an answer through ``a`` (the global ones where it sets nothing).
    ``by_admin``: its owner is an admin. Only an admin's assistant may set the strict bar below
    the admin's global one; a plain user's may only raise it (strict mode is not weakened)."""
    strict, retrieval, answering = {}, {}, {}
    if a.strict_min_similarity is not None:
        floor = 0.0 if by_admin else settings.strict.rag_strict_min_similarity
        strict["rag_strict_min_similarity"] = max(a.strict_min_similarity, floor)
    if a.normal_min_similarity is not None:
        retrieval["rag_min_similarity"] = a.normal_min_similarity
    if a.top_k is not None:
        strict["rag_strict_max_results"] = retrieval["rag_max_results"] = a.top_k
    if a.refusal_text.strip():
        strict["rag_strict_no_hit_reply"] = a.refusal_text
    if a.prompt.strip():
        answering["rag_template"] = a.prompt
    return settings.model_copy(update={
        "strict": settings.strict.model_copy(update=strict),
        "retrieval": settings.retrieval.model_copy(update=retrieval),
        "answering": settings.answering.model_copy(update=answering)})


@dataclass(frozen=True)
class Tuning:
    """What an assistant makes of one question for its caller: the scope (``kb_ids``, confined to
    them), its mode and filter (none over an empty scope: its fields may be in no knowledge base the
    caller may read), the scope's notices said first, and the settings tuned for the answer."""

    kb_ids: list[str] | None
    mode: str
    where: dict[str, Any] | None
    said: tuple[Notice, ...]
    tune: Callable[[Settings], Settings]


def tuning(db: Database, actor: Actor, ref: str) -> Tuning:
    """The assistant ``ref`` (id or name) as ``actor`` asks through it, read at the moment of asking."""
    with db.read() as s:
        a = store.resolve(s, actor, ref)
        scope = caller_scope(s, actor, a)
        by_admin = owner_is_admin(s, a)
    return Tuning(scope.kb_ids, a.mode, None if scope.empty is not None else a.where, scope_notices(scope),
                  lambda settings: tuned(settings, a, by_admin))
