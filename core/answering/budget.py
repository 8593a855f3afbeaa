"""The context budget: what fits in the model's context window.

Budget = context length − room kept for the answer − the fixed part of the prompt (system
prompt, template, question, history). Context items are kept most relevant first; the least
relevant are dropped first. A whole document that does not fit is cut to what is left.
The caller tells the user whenever something was cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from core.answering.prompts import ContextItem
from core.llm.base import ChatMessage
from core.notices import Notice, notice

_HEADER_TOKENS = 16  # "[n] source (location)" line and separators, per block
_MIN_DOCUMENT_TOKENS = 64  # below this a cut document is not worth injecting


def answer_reserve(context_length: int) -> int:
    """Tokens left free for the model's answer."""
    return max(256, min(2048, context_length // 8))


@dataclass
class Fitted:
    kept: list[ContextItem]
    dropped: list[ContextItem] = field(default_factory=list)
    cut: list[ContextItem] = field(default_factory=list)  # documents shortened to fit

    def notice(self) -> Notice | None:
        names = ", ".join(sorted({d.source for d in self.dropped}))
        cut = ", ".join(c.source for c in self.cut)
        if self.dropped and self.cut:
            return notice("budget.dropped_and_cut", n=len(self.dropped), names=names, cut=cut)
        if self.dropped:
            return notice("budget.dropped", n=len(self.dropped), names=names)
        return notice("budget.cut", names=cut) if self.cut else None


def fit_items(items: list[ContextItem], available_tokens: int, count: Callable[[str], int]) -> Fitted:
    """Keep the most relevant items that fit in ``available_tokens``, most relevant first."""
    out = Fitted(kept=[])
    left = available_tokens
    for item in sorted(items, key=lambda i: i.score, reverse=True):
        cost = count(item.text) + _HEADER_TOKENS
        if cost <= left:
            out.kept.append(item)
            left -= cost
        elif item.kind == "document" and left - _HEADER_TOKENS >= _MIN_DOCUMENT_TOKENS:
            item.text = cut_to_tokens(item.text, left - _HEADER_TOKENS, count)
            out.kept.append(item)
            out.cut.append(item)
            left -= count(item.text) + _HEADER_TOKENS
        else:
            out.dropped.append(item)
    return out


def cut_to_tokens(text: str, tokens: int, count: Callable[[str], int]) -> str:
    """The longest prefix of ``text`` within ``tokens`` (binary search on characters)."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def trim_history(history: list[ChatMessage], max_tokens: int, count: Callable[[str], int]) -> list[ChatMessage]:
    """The most recent turns that fit in ``max_tokens`` (oldest dropped first)."""
    kept: list[ChatMessage] = []
    used = 0
    for msg in reversed(history):
        cost = count(msg.content) + 4
        if used + cost > max_tokens:
            break
        kept.append(msg)
        used += cost
    return list(reversed(kept))


def messages_tokens(messages: list[ChatMessage], count: Callable[[str], int]) -> int:
    return sum(count(m.content) + 4 for m in messages)
