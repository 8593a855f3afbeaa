"""Which process holds the embedded store, in words: what the CLI's hand-off notes and refusals
name ("the API server (python -m core api, pid 4242) holds the store"), never a guess.

An entry point that serves the hand-off says what it is (``set_role``); the dashboard is named
by its Streamlit runtime."""

from __future__ import annotations

import os
import sys

_role: tuple[str, str] | None = None


def set_role(name: str, command: str = "") -> None:
    """This process as a reader would call it, and the command that started it."""
    global _role
    _role = (name, command)


def describe() -> str:
    """e.g. "the API server (python -m core api, pid 4242)", "the dashboard (pid 4242)"."""
    name, command = _role or (("the dashboard", "") if "streamlit" in sys.modules else ("a ragdesk process", ""))
    pid = f"pid {os.getpid()}"
    return f"{name} ({command}, {pid})" if command else f"{name} ({pid})"


def holder_of(remote) -> str:
    """The process at the other end of a hand-off (a ``RemoteEngine``), in words; one of an
    earlier release cannot say."""
    from core.errors import CoreError

    try:
        return str(remote.holder())
    except (CoreError, AttributeError):
        return "the process serving the hand-off"
