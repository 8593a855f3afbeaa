"""Caps on what one request may cost, checked at the engine before any work is done.

A 1M-character question cost a minute of CPU; a message with 40 URL mentions made 40 fetches.
Each cap is a setting with a default that real use stays well under, and a refusal names it.
"""

from __future__ import annotations

import math

from core.errors import InvalidInput
from core.settings.model import Settings

def check_question(question: str, settings: Settings) -> None:
    cap = settings.answering.max_question_chars
    if len(question or "") > cap:
        raise InvalidInput(f"the question is {len(question)} characters long; the limit is {cap} "
                           "(setting answering.max_question_chars)")
    from core.answering.references import count_url_references

    urls, url_cap = count_url_references(question or ""), settings.answering.max_url_mentions
    if urls > url_cap:
        raise InvalidInput(f"the message mentions {urls} URLs; at most {url_cap} are fetched per message "
                           "(setting answering.max_url_mentions)")


def check_search(query: str, top_k: int | None, min_score: float | None, settings: Settings) -> None:
    check_search_parameters(query, top_k, min_score)
    cap = settings.answering.max_question_chars
    if len(query) > cap:
        raise InvalidInput(f"the search query is {len(query)} characters long; the limit is {cap} "
                           "(setting answering.max_question_chars)")


def check_search_parameters(query: str, top_k: int | None, min_score: float | None) -> None:
    """What needs no settings to judge (the CLI checks each before opening anything: ``Arg(check=...)``)."""
    check_query_text(query)
    check_top_k(top_k)
    check_min_score(min_score)


def check_query_text(query: str) -> None:
    if not (query or "").strip():
        raise InvalidInput("the search query is empty")


def check_top_k(top_k: int | None) -> None:
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 1000):
        raise InvalidInput(f"top_k must be a whole number from 1 to 1000, not {top_k!r}")


def check_min_score(min_score: float | None) -> None:
    if min_score is not None and (not isinstance(min_score, (int, float)) or isinstance(min_score, bool)
                                  or not math.isfinite(min_score) or not 0 <= min_score <= 1):
        raise InvalidInput(f"min_score must be a number from 0 to 1, not {min_score!r}")