"""An engine that cannot open (the embedded store is held by another process) gives back what
it opened before failing: no database connections pile up while a caller keeps retrying."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from core.config import RuntimeConfig
from core.engine import Engine
from core.errors import StoreBusy


def _open_files_under(folder: Path) -> int:
    """File descriptors of this process open on files under ``folder`` (the database and its WAL)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.startswith(str(folder))
    return count


def test_a_store_busy_open_leaves_no_database_connection_behind(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    holder = Engine(RuntimeConfig.from_env(data_dir))  # holds the embedded store
    failures = []

    def fail_to_open() -> None:  # a page retrying: each failure is kept (logged, shown) by its caller
        with pytest.raises(StoreBusy) as caught:
            Engine(RuntimeConfig.from_env(data_dir))
        failures.append(caught.value)
        gc.collect()

    try:
        fail_to_open()
        # SQLite may keep one descriptor of a file another connection of this process has locked
        # until that connection lets go: counted from here, every later failure must add nothing.
        after_one = _open_files_under(data_dir)
        for _ in range(4):
            fail_to_open()
        assert _open_files_under(data_dir) == after_one
    finally:
        holder.close()
