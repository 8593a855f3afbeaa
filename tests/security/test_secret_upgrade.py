"""Threat: an upgraded data folder keeps the keys an earlier release saved in plain text (before
secrets were encrypted) — in every settings version, not only the one in force — until someone
runs ``secrets rotate``; a copy of the database gives them away. Now every start, and ``db
upgrade``, encrypts every secret it finds in every settings row.

The data folder is made as that release made it: its own database (``tests/db/fixtures``, the
release before Alembic) with settings rows holding keys as given, and no ``secret.key`` yet."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.config import RuntimeConfig
from core.engine import Engine

FIXTURES = Path(__file__).resolve().parents[1] / "db" / "fixtures"
REPO = Path(__file__).resolve().parents[2]
PLAIN = {"llm": "sk-plain-llm-key-1234567890", "embedding": "sk-plain-embedding-0987654321",
         "tavily": "tvly-plain-legacy-key-555", "old": "sk-plain-older-version-777"}


@pytest.fixture(autouse=True)
def _embedded(monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)


def _earlier_release_folder(root: Path) -> Path:
    data = root / "data"
    data.mkdir(mode=0o700)
    conn = sqlite3.connect(data / "ragdesk.db")
    conn.executescript((FIXTURES / "pre_alembic.sqlite.sql").read_text())
    older = {"embedding": {"provider": "local", "model": "hash-64"}, "llm": {"api_key": PLAIN["old"]}}
    newer = {"embedding": {"provider": "local", "model": "hash-64", "api_key": PLAIN["embedding"]},
             "llm": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key": PLAIN["llm"]},
             "web_search": {"tavily_api_key": PLAIN["tavily"]}}  # the flat key that release used
    conn.execute("UPDATE settingsversion SET data = ? WHERE version = 1", (json.dumps(older),))
    conn.execute("INSERT INTO settingsversion (version, data, saved_by, created_at) VALUES (2, ?, 'admin', "
                 "'2026-12-02 03:00:00')", (json.dumps(newer),))
    conn.commit()
    conn.close()
    (data / "ragdesk.db").chmod(0o600)
    return data


def _rows(data: Path) -> list[str]:
    conn = sqlite3.connect(data / "ragdesk.db")
    try:
        return [r[0] for r in conn.execute("SELECT data FROM settingsversion ORDER BY version")]
    finally:
        conn.close()


def _plain_anywhere(data: Path) -> list[str]:
    found = [name for name, key in PLAIN.items() if any(key in row for row in _rows(data))]
    for path in data.glob("ragdesk.db*"):
        raw = path.read_bytes()
        found += [f"{name} in {path.name}" for name, key in PLAIN.items() if key.encode() in raw]
    return found


def test_a_start_encrypts_every_plain_secret_of_every_settings_version(tmp_path):
    data = _earlier_release_folder(tmp_path)
    assert len(_plain_anywhere(data)) >= 4
    engine = Engine(RuntimeConfig.from_env(data))
    try:
        in_force = engine.services.curated._rt.settings()  # what providers are built from: the keys still work
        assert in_force.llm.api_key.get_secret_value() == PLAIN["llm"]
        assert in_force.embedding.api_key.get_secret_value() == PLAIN["embedding"]
        tavily = in_force.web_search.engines["tavily"]
        assert (tavily["api_key"] if isinstance(tavily, dict) else tavily.api_key).get_secret_value() == PLAIN["tavily"]
    finally:
        engine.close()
    assert _plain_anywhere(data) == []
    assert all("enc:v1:" in row for row in _rows(data))
    engine = Engine(RuntimeConfig.from_env(data))  # the next start finds nothing to do and reads them back
    try:
        assert engine.services.curated._rt.settings().llm.api_key.get_secret_value() == PLAIN["llm"]
    finally:
        engine.close()


def _cli(data: Path, *args: str, env: dict | None = None) -> dict:
    proc = subprocess.run([sys.executable, "-m", "core", "--data-dir", str(data), "--json", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=180, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_db_upgrade_encrypts_them_too(tmp_path):
    data = _earlier_release_folder(tmp_path)
    report = _cli(data, "db", "upgrade")
    assert report["secrets_encrypted"] == 2 and report["from"] is None
    assert _plain_anywhere(data) == []


def test_db_upgrade_on_an_empty_postgres_database_does_not_say_before_alembic(tmp_path, postgres_url):
    env = {"DATABASE_URL": postgres_url}
    proc = subprocess.run([sys.executable, "-m", "core", "--data-dir", str(tmp_path / "none"), "db", "upgrade"],
                          cwd=REPO, capture_output=True, text=True, timeout=180, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    assert "before Alembic" not in proc.stdout and "(was empty)" in proc.stdout, proc.stdout
    proc = subprocess.run([sys.executable, "-m", "core", "--data-dir", str(tmp_path / "none"), "db", "upgrade"],
                          cwd=REPO, capture_output=True, text=True, timeout=180, env={**os.environ, **env})
    assert "(was" not in proc.stdout, proc.stdout
