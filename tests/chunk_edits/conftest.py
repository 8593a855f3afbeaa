"""An engine (hash embedder, embedded Qdrant, SQLite or PostgreSQL) with one knowledge base holding
a handbook written here, and a reader who may read it but not write it."""

from __future__ import annotations

import pytest

from core.accounts.users import actor_of
from core.config import RuntimeConfig
from core.engine import Engine
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN

HANDBOOK = """# Office handbook

## Parking

Visitors park in the north garage on level two; the gate code is given at the front desk.

## Lunch

The canteen serves lunch from noon to two, with a vegetarian dish every day.

## Badges

A lost badge is replaced by the security office within one working day.
"""


def make(data_dir, monkeypatch, database_url: str | None = None, **settings) -> Engine:
    monkeypatch.delenv("QDRANT_URL", raising=False)
    if database_url:
        monkeypatch.setenv("DATABASE_URL", database_url)
    else:
        monkeypatch.delenv("DATABASE_URL", raising=False)
    engine = Engine(RuntimeConfig.from_env(data_dir))
    patch = {"embedding": {"provider": "local", "model": "hash-64"},
             "chunking": {"chunk_size": 120, "chunk_overlap": 0, "chunk_min_size_target": 0}}
    for section, values in settings.items():
        patch.setdefault(section, {}).update(values)
    engine.save_settings(ADMIN, patch)
    return engine


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request, data_dir, monkeypatch):
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    e = make(data_dir, monkeypatch, url)
    e.create_kb(ADMIN, "office", visibility="public")
    [result] = e.ingest(ADMIN, "office", [Upload("handbook.md", HANDBOOK.encode())])
    assert result.status == "indexed", result
    yield e
    e.close()


@pytest.fixture
def handbook(engine):
    [rec] = engine.list_files(ADMIN, "office")
    return rec.id


@pytest.fixture
def reader(engine):
    engine.sign_up("first", "first-password-1")  # the first account is the admin
    return actor_of(engine.sign_up("reader", "reader-password-1"))


def chunk_with(engine, file_id: str, word: str):
    [chunk] = [c for c in engine.list_chunks(ADMIN, file_id).chunks if word in c.text]
    return chunk


def texts_found(engine, query: str, mode: str = "hybrid", actor=ADMIN) -> list[str]:
    return [h.text for h in engine.search(actor, query, ["office"], mode=mode, min_score=0.0).hits]
