from __future__ import annotations

from typing import Iterator

import pytest

from tests.fakes.embedding_server import FakeEmbeddingServer, fake_embedding_server

API_KEY = "sk-test-7f3a9c2e1b"


@pytest.fixture
def embedding_server() -> Iterator[FakeEmbeddingServer]:
    with fake_embedding_server(api_key=API_KEY) as server:
        yield server
