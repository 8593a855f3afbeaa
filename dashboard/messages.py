"""What the engine stored about a file or a job, said in the reader's language: a row carries a
message key and its values beside the English text (core/messages.py); the text stays for rows
older than the keys and for keys this interface does not know."""

from __future__ import annotations

from dashboard.i18n import t
from dashboard.locales.en import STRINGS as EN


def said(text: str, key: str | None, params: dict | None) -> str:
    if not key or f"msg.{key}" not in EN:
        return text
    try:
        return t(f"msg.{key}", **(params or {}))
    except (KeyError, IndexError, ValueError):  # values stored by another version: its English text
        return text
