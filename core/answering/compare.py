"""The same question answered in normal and in strict mode, side by side (the A/B page).

``ask`` answers one question in one mode for a temporary chat; the engine binds it to one
context, so both answers share the settings snapshot, the scope and the search function."""

from __future__ import annotations

from typing import Callable

from core.answering.types import Answer, Comparison

AskFn = Callable[[str, str], Answer]  # (question, mode) -> the answer of a temporary chat


def compare(ask: AskFn, question: str) -> Comparison:
    """Both answers with their retrievals and timings; nothing is stored (temporary)."""
    return Comparison(question, ask(question, "normal"), ask(question, "strict"))
