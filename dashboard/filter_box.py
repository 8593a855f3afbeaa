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


_OPS = {"gte": ">=", "gt": ">", "lte": "<=", "lt": "<"}


def written(where: dict[str, Any]) -> str:
    """A stored filter in the box's form, to show (an assistant's: ``office=Porto; year<2025``)."""
    parts = []
    for name, value in where.items():
        if isinstance(value, dict):
            parts += [f"{name}{_OPS.get(op, op)}{v}" for op, v in value.items()]
        elif isinstance(value, list):
            parts.append(f"{name}={'|'.join(map(str, value))}")
        else:
            parts.append(f"{name}={value}")
    return "; ".join(parts)
