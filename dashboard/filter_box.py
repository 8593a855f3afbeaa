"""The metadata filter box of Chat, the retrieval test and the Strict A/B page: one text field in the
CLI's written form (``office=Lisbon; year>=2024; topics=hr|travel``, core/metadata/where.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core.metadata.where import from_cli
from dashboard.i18n import t


def filter_box(key: str) -> str:
    """The typed filter text (read it with ``typed_where`` when the question is asked)."""
    return st.text_input(t("chat.filter"), key=key, placeholder=t("chat.filter_help"))


def typed_where(text: str) -> dict[str, Any] | None:
    """The filter as the engine's ``where`` (None: no filter); a malformed one raises InvalidInput,
    which the page's guard() shows."""
    return from_cli([part for part in text.split(";") if part.strip()])
