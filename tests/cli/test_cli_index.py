"""``kb index``: the embedded store's offline index build, from its own process only."""

from __future__ import annotations

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.errors import PermissionDenied
from core.types import SYSTEM_ACTOR
from tests.cli.test_cli import as_json, docs, run_cli  # noqa: F401 (docs: the fixture)


def _hits(data_dir, query: str) -> list[tuple[str, float]]:
    found = as_json(run_cli(data_dir, "--json", "search", "--kb", "handbook", "--min-score", "0", query))
    return [(h["chunk_id"], round(h["score"], 6)) for h in found["hits"]]


def test_index_leaves_search_results_as_they_were(data_dir, docs):
    run_cli(data_dir, "kb", "create", "handbook")
    run_cli(data_dir, "ingest", "--kb", "handbook", str(docs))
    before = {q: _hits(data_dir, q) for q in ("annual leave", "年度休假")}
    assert all(before.values())

    report = as_json(run_cli(data_dir, "--json", "kb", "index", "handbook"))
    assert report["kb"] == "handbook" and report["indexed"] is False  # three small files: scanned, exact
    assert "scans it exactly" in report["note"]
    assert {q: _hits(data_dir, q) for q in before} == before

    missing = run_cli(data_dir, "kb", "index", "no-such-base", check=False)
    assert missing.returncode != 0 and "no-such-base" in missing.stderr


def test_index_is_not_handed_to_the_process_holding_the_store(data_dir, docs, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    run_cli(data_dir, "kb", "create", "handbook")
    holder = Engine(RuntimeConfig.from_env(data_dir))  # as the dashboard would
    try:
        busy = run_cli(data_dir, "--wait", "0", "kb", "index", "handbook", check=False)
    finally:
        holder.close()
    assert busy.returncode != 0
    assert "stop the dashboard" in busy.stderr and "Traceback" not in busy.stderr


def test_only_an_admin_builds_an_index(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("RAGDESK_EMBEDDING__MODEL", "hash-64")
    with Engine(RuntimeConfig.from_env(data_dir)) as engine:
        engine.create_user(SYSTEM_ACTOR, "root", "a-long-password-0", role="admin")
        user = engine.create_user(SYSTEM_ACTOR, "carol", "a-long-password-1", role="user")
        actor = engine.actor_for(user.id)
        engine.create_kb(actor, "mine")
        with pytest.raises(PermissionDenied):
            engine.index_kb(actor, "mine")
        assert engine.index_kb(SYSTEM_ACTOR, "mine")["indexed"] is False
