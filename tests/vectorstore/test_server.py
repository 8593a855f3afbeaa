"""The server engine's own edges: configuration, errors, and the API key kept out of sight."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest

from core.errors import InvalidSettings, StoreError
from core.vectorstore.factory import open_store
from core.vectorstore.server import QdrantServerStore

SECRET = "sk-test-7f3a9c-never-show-me"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


def test_unreachable_server_is_a_store_error_without_the_key(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    url = f"http://127.0.0.1:{closed_port()}"
    store = open_store(tmp_path, url, SECRET)
    assert isinstance(store, QdrantServerStore)
    assert SECRET not in repr(store) and url in repr(store)
    with pytest.raises(StoreError) as caught:
        store.list_collections()
    assert url in caught.value.message
    assert SECRET not in caught.value.message and SECRET not in (caught.value.detail or "")
    assert SECRET not in caplog.text
    store.close()
    assert not (tmp_path / "vectors").exists()  # no silent fallback to the embedded engine


def test_no_url_and_no_local_mode_is_a_settings_error() -> None:
    with pytest.raises(InvalidSettings, match="QDRANT_URL"):
        QdrantServerStore()
