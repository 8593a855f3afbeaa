"""The fake server speaks the real wire formats: the official clients accept its answers."""

from __future__ import annotations

import numpy as np
import ollama
import openai
import pytest

from tests.embeddings.conftest import API_KEY
from tests.fakes.embedding_server import http_error


def test_official_openai_client_reads_it(embedding_server):
    client = openai.OpenAI(base_url=embedding_server.openai_url, api_key=API_KEY, max_retries=0)
    result = client.embeddings.create(model="fake-embed", input=["first text", "second text", "third"])
    assert sorted(item.index for item in result.data) == [0, 1, 2]
    assert all(len(item.embedding) == 16 for item in result.data)
    assert embedding_server.embed_count == 1 and embedding_server.batch_sizes() == [3]


def test_official_openai_client_sees_its_errors(embedding_server):
    embedding_server.fail_next(http_error(500, "boom"))
    client = openai.OpenAI(base_url=embedding_server.openai_url, api_key=API_KEY, max_retries=0)
    with pytest.raises(openai.InternalServerError):
        client.embeddings.create(model="fake-embed", input=["x"])
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=embedding_server.openai_url, api_key="wrong", max_retries=0).embeddings.create(
            model="fake-embed", input=["x"]
        )


def test_official_ollama_client_reads_it(embedding_server):
    client = ollama.Client(host=embedding_server.ollama_url, headers={"Authorization": f"Bearer {API_KEY}"})
    result = client.embed(model="fake-embed", input=["年假怎么申请", "how to apply for leave"])
    vectors = np.asarray(result.embeddings)
    assert vectors.shape == (2, 16)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), embedding_server.scale, rtol=1e-5)
    with pytest.raises(ollama.ResponseError) as info:
        client.embed(model="missing", input=["x"])
    assert info.value.status_code == 404
