"""Protocol-level test doubles for outside services (see llm_server.py)."""

from __future__ import annotations

from typing import Iterator

import pytest

from .llm_server import FakeLLMServer, Reply, fake_llm_server, http_error, malformed, text, tool_call

__all__ = ["FakeLLMServer", "Reply", "fake_llm_server", "http_error", "malformed", "text", "tool_call", "llm_server"]


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    """A running fake server with an empty script; add replies with ``llm_server.add(...)``."""
    with fake_llm_server() as server:
        yield server
