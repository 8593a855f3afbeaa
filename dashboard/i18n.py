"""UI text in English and Chinese: one dict per language (dashboard/locales), ``t(key)``.

The language lives in the session (read from the signed-in user's setting on each run).
"""

from __future__ import annotations

import streamlit as st

from dashboard.locales.en import STRINGS as EN
from dashboard.locales.zh import STRINGS as ZH

LANGUAGES = {"en": EN, "zh": ZH}
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


def lang() -> str:
    code = st.session_state.get("lang", "en")
    return code if code in LANGUAGES else "en"


def set_lang(code: str) -> None:
    st.session_state["lang"] = code if code in LANGUAGES else "en"


def t(key: str, **values: object) -> str:
    """The text for ``key`` in the session's language; a missing key shows itself (a test
    checks every key used in the code exists in both dicts)."""
    text = LANGUAGES[lang()].get(key) or EN.get(key) or key
    return text.format(**values) if values else text
