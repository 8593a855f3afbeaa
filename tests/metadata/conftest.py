"""A knowledge base of travel policies (Chinese and English) whose files carry metadata: the
office (text), the year (number), when it took effect (date) and its topics (tags)."""

from __future__ import annotations

import pytest

from core.types import SYSTEM_ACTOR as ADMIN
from tests.engine.conftest import make_engine, md

LISBON = """# Lisbon office travel policy 2025

Hotel costs in Lisbon are reimbursed up to 180 euros per night.
Train travel within Portugal is second class.
Taxi rides to the airport are reimbursed only with a receipt from the official taxi rank.
"""
PORTO = """# Porto office travel policy 2024

Hotel costs in Porto are reimbursed up to 150 euros per night.
Train travel within Portugal is second class.
"""
SHANGHAI = """# 上海办公室差旅政策 2025

上海出差住宿费每晚不超过八百元。
出差乘坐高铁可报销二等座。
"""
VALUES = {
    "lisbon.md": {"office": "Lisbon", "year": 2025, "effective": "2025-03-01", "topics": ["travel", "hotel"]},
    "porto.md": {"office": "Porto", "year": 2024, "effective": "2024-01-15", "topics": ["travel"]},
    "shanghai.md": {"office": "上海", "year": 2025, "effective": "2025-07-01", "topics": ["差旅", "hotel"]},
}
FIELDS = (("office", "text"), ("year", "number"), ("effective", "date"), ("topics", "tags"))


def build(engine, kb: str = "policies") -> dict[str, str]:
    """The knowledge base, its fields and values; file name -> id."""
    engine.create_kb(ADMIN, kb)
    results = engine.ingest(ADMIN, kb, [md("lisbon.md", LISBON), md("porto.md", PORTO), md("shanghai.md", SHANGHAI)])
    assert all(r.status == "indexed" for r in results), results
    for name, kind in FIELDS:
        engine.define_metadata_field(ADMIN, kb, name, kind)
    ids = {f.name: f.id for f in engine.list_files(ADMIN, kb)}
    for name, values in VALUES.items():
        engine.set_file_metadata(ADMIN, ids[name], values)
    return ids


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request, data_dir, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    if request.param == "postgres":
        monkeypatch.setenv("DATABASE_URL", request.getfixturevalue("postgres_url"))
    else:
        monkeypatch.delenv("DATABASE_URL", raising=False)
    e = make_engine(data_dir)
    yield e
    e.close()


@pytest.fixture
def sqlite_engine(data_dir, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    e = make_engine(data_dir)
    yield e
    e.close()
