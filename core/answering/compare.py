"""The same question answered in normal and in strict mode, side by side (the A/B page).

``ask`` is the engine's own question path (``Engine.ask`` for a temporary chat), so both
answers go through the same context, scope and search function as a chat message."""

from __future__ import annotations

from typing import Callable

from core.answering.types import Answer, Comparison

AskFn = Callable[[str, str], Answer]  # (question, mode) -> the answer of a temporary chat


def compare(ask: AskFn, question: str) -> Comparison:
    """Both answers with their retrievals and timings; nothing is stored (temporary)."""
    return Comparison(question, ask(question, "normal"), ask(question, "strict"))


def compare_batch(ask: AskFn, questions: list[str]) -> list[Comparison]:
    return [compare(ask, q) for q in questions if q.strip()]
