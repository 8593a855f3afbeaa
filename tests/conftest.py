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
