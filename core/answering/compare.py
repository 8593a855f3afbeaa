"""The same question answered in normal and in strict mode, side by side (the A/B page)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.answering.service import ask
from core.answering.types import Comparison
from core.types import Actor

if TYPE_CHECKING:
    from core.engine import Engine


def compare(engine: "Engine", actor: Actor, question: str, kbs: list[str] | None = None, web: bool = False) -> Comparison:
    """Both answers with their retrievals and timings; nothing is stored (temporary). With ``web``
    the normal side may search the web; the strict side never does (it says so)."""
    normal = ask(engine, actor, question, kbs=kbs, mode="normal", temporary=True, web=web)
    strict = ask(engine, actor, question, kbs=kbs, mode="strict", temporary=True, web=web)
    return Comparison(question, normal, strict)


def compare_batch(engine: "Engine", actor: Actor, questions: list[str], kbs: list[str] | None = None,
                  web: bool = False) -> list[Comparison]:
    return [compare(engine, actor, q, kbs, web=web) for q in questions if q.strip()]
