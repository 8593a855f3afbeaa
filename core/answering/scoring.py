"""Scoring an answer against an expected answer (the A/B page and `compare --batch`).

An expected answer is one fact, or alternatives separated by ``|`` ("15 days|fifteen days").
The expected answer ``-`` says the knowledge base does not cover the question: a refusal is
the right outcome there. A blank expected answer is not scored.

A verdict is what the A/B page and ``compare --batch`` compare between the modes: the outcome
when there is an expected answer, else ``answered`` or ``refused`` — so two refusals in other
words are the same verdict, and "modes differ" counts only answers that differ in substance.

Outcomes per answer:
- ``correct``: the answer contains the expected fact (case, spaces and punctuation ignored);
- ``refused``: the answer makes no claim (strict no-hit reply, an error, or neither a quote
  from the knowledge base nor a model call behind it);
- ``wrong``: it answered, without the expected fact (or answered an uncovered question).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from core.answering.types import Answer

Outcome = Literal["correct", "refused", "wrong"]
OUTCOMES: tuple[Outcome, ...] = ("correct", "refused", "wrong")
NOT_COVERED = "-"

_NOISE = re.compile(r"[\s\W_]+", re.UNICODE)


def normalise(text: str) -> str:
    """Lowercase, full-width folded (NFKC), without spaces or punctuation."""
    return _NOISE.sub("", unicodedata.normalize("NFKC", text or "").lower())


def refused(answer: Answer) -> bool:
    if answer.error or not (answer.text or "").strip():
        return True
    if answer.mode == "strict" and not answer.hit:
        return True
    return not answer.llm_called and not answer.citations


def contains_fact(text: str, expected: str) -> bool:
    body = normalise(text)
    return any(alt and alt in body for alt in (normalise(a) for a in expected.split("|")))


@dataclass(frozen=True)
class Score:
    outcome: Outcome
    as_expected: bool  # the outcome a reviewer wants: the fact, or a refusal where not covered


def score(answer: Answer, expected: str | None) -> Score | None:
    """None when there is nothing to score against (no or blank expected answer)."""
    if expected is None or not expected.strip():
        return None
    expected = expected.strip()
    if refused(answer):
        return Score("refused", as_expected=expected == NOT_COVERED)
    if expected != NOT_COVERED and contains_fact(answer.text, expected):
        return Score("correct", as_expected=True)
    return Score("wrong", as_expected=False)


Verdict = Literal["correct", "answered", "refused", "wrong"]


def verdict(answer: Answer, expected: str | None) -> Verdict:
    scored = score(answer, expected)
    if scored is not None:
        return scored.outcome
    return "refused" if refused(answer) else "answered"
