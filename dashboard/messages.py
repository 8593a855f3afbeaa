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


def progress_line(job) -> str:
    """A running job's step and counter in the reader's language. A step this interface knows is
    worded with its own counter ("reading page 39 of 120"); a plain message (a row older than the
    keys) keeps the counter after it; no "(0/0)" before the work is counted."""
    done, total = job.progress_done, job.progress_total
    key, message = job.message_key, job.message or ""
    if key and f"msg.{key}" in EN:
        try:
            return t(f"msg.{key}", **{"done": done, "total": total, **(job.message_params or {})})
        except (KeyError, IndexError, ValueError):
            pass
    return f"{message} ({done}/{total})" if total and message else message
