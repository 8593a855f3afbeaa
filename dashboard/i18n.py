"""UI text in English and Chinese: one dict per language (dashboard/locales), ``t(key)``.

The language lives in the session (read from the signed-in user's setting on each run).
A count picks its English word in the text itself: ``"{n} {n:chunk|chunks}"`` reads "1 chunk",
"2 chunks" (Chinese texts need no such field).
"""

from __future__ import annotations

import string
from typing import Any, Callable

import streamlit as st

from dashboard.locales.en import STRINGS as EN
from dashboard.locales.zh import STRINGS as ZH

LANGUAGES = {"en": EN, "zh": ZH}
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


class _Words(string.Formatter):
    def format_field(self, value, format_spec: str):
        if "|" in format_spec:  # {n:one|other}: the word for this count
            one, other = format_spec.split("|", 1)
            return one if value == 1 else other
        return super().format_field(value, format_spec)


_WORDS = _Words()


def lang() -> str:
    code = st.session_state.get("lang", "en")
    return code if code in LANGUAGES else "en"


def set_lang(code: str) -> None:
    st.session_state["lang"] = code if code in LANGUAGES else "en"


def lang_key(key: str) -> str:
    """A widget key for words that follow the language (a select box's option labels): the
    browser keeps showing the label it holds for a widget it knows, so a switch of language must
    make a new widget for the new words to show at once."""
    return f"{key}.{lang()}"


def worded(values, word: Callable[[Any], str]) -> Callable[[Any], str]:
    """A select box's ``format_func``: each value's words, made now in the reader's language (a
    function that looked the language up when called would say a later caller's language)."""
    table = {value: word(value) for value in values}
    return lambda value: table[value] if value in table else word(value)


def words(text: str, **values: object) -> str:
    """``text`` with its values, counts taking their word."""
    return _WORDS.format(text, **values)


def t(key: str, **values: object) -> str:
    """The text for ``key`` in the session's language; a missing key shows itself (a test
    checks every key used in the code exists in both dicts)."""
    text = LANGUAGES[lang()].get(key) or EN.get(key) or key
    return words(text, **values) if values else text
