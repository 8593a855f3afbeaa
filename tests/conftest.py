"""Suite-wide fixtures: an isolated data folder per test, offline models, shared data lookup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("RAGDESK_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def shared_path(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs the shared test data at {path} (present beside the checkout in CI, absent in a fresh clone)")
    return path


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "ragdesk-data"
    d.mkdir()
    return d


@pytest.fixture(params=["sqlite", "postgres"])
def either_database(request, tmp_path):
    """A fresh Database, once on SQLite and once on PostgreSQL (skipped without a server)."""
    from core.db.database import Database, sqlite_url

    url = sqlite_url(tmp_path / "t.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    database = Database(url)
    yield database
    database.dispose()


@pytest.fixture
def postgres_url():
    """A fresh schema on the PostgreSQL server CI starts (RAGDESK_TEST_POSTGRES_URL), dropped afterwards."""
    base = os.environ.get("RAGDESK_TEST_POSTGRES_URL")
    if not base:
        pytest.skip("set RAGDESK_TEST_POSTGRES_URL (.ci/run starts a PostgreSQL server and sets it)")
    import uuid

    from sqlalchemy import create_engine, text

    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in base else "?"
    yield f"{base}{sep}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()
