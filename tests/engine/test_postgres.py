"""The engine on PostgreSQL: the same lifecycle as on SQLite, through a real server."""

from __future__ import annotations

from core.config import RuntimeConfig
from core.engine import Engine
from core.types import SYSTEM_ACTOR
from core.accounts.users import actor_of
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, md

A = SYSTEM_ACTOR


def test_lifecycle_on_postgres(data_dir, postgres_url):
    config = RuntimeConfig(data_dir=data_dir, database_url=postgres_url)
    with Engine(config) as engine:
        engine.save_settings(A, {"embedding": {"model": "hash-64"}})
        bob = actor_of(engine.sign_up("bob", "bob-password"))
        engine.create_kb(bob, "kb")
        kept, gone = engine.ingest(bob, "kb", [md("h.md", HANDBOOK_MD), md("p.md", POLICY_MD)])
        assert engine.search(bob, "一线城市住宿费", ["kb"], min_score=0).hits[0].file_id == gone.file_id
        engine.delete_files(bob, [gone.file_id])
        assert engine.reindex(bob, "kb").status == "done"
        assert engine.doctor(A).healthy
    with Engine(config) as engine:  # a restart sees the same state and settings
        assert engine.settings().embedding.model == "hash-64"
        assert [f.name for f in engine.list_files(A, "kb")] == ["h.md"]
