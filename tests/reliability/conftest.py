"""Reliability tests: hostile or oversized input, and a full disk, must cost what they weigh and
fail alone with a clear reason. The hostile files are generated (tests/reliability/hostile.py)."""

from __future__ import annotations

import pytest

from core.types import SYSTEM_ACTOR
from tests.engine.conftest import make_engine


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    e.create_kb(SYSTEM_ACTOR, "kb")
    yield e
    e.close()
