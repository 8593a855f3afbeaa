"""The OpenAI-compatible and Ollama clients against a local server speaking each API."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from core.embeddings.errors import EmbeddingAuthError, EmbeddingRejected
from core.embeddings.factory import make_embedder
from core.errors import EmbeddingError
from core.settings.model import EmbeddingSettings
from tests.embeddings.conftest import API_KEY
from tests.fakes.embedding_server import FakeEmbeddingServer, garbage, http_error, slow

PROVIDERS = ["openai", "ollama"]


def _url(server: FakeEmbeddingServer, provider: str) -> str:
    return server.openai_url if provider == "openai" else server.ollama_url


def _client(provider: str, base_url: str, *, api_key: str = API_KEY, batch_size: int = 32, timeout: float = 5.0,
            model: str = "fake-embed"):
    settings = EmbeddingSettings(provider=provider, base_url=base_url, api_key=api_key, model=model,
                                 batch_size=batch_size, timeout_seconds=timeout)
    return make_embedder(settings)


def _assert_key_hidden(exc: EmbeddingError, embedder) -> None:
    for text in (str(exc), exc.message, exc.detail or "", repr(exc), repr(embedder)):
        assert API_KEY not in text


@pytest.mark.parametrize("provider", PROVIDERS)
def test_vectors_are_unit_rows_in_input_order(embedding_server, provider):
    texts = ["alpha beta", "gamma delta", "年假 申请", "epsilon"]
    emb = _client(provider, _url(embedding_server, provider))
    vectors = emb.embed_documents(texts)
    assert emb.id == f"{provider}/fake-embed"
    assert vectors.shape == (4, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    # the server scales its vectors by 3 (and the OpenAI one shuffles its items): each row must
    # still point where the server's vector for that same text points
    expected = np.asarray(embedding_server.vectors(texts), dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(np.sum(vectors * expected, axis=1), 1.0, atol=1e-5)
    query = emb.embed_query("gamma delta")
    assert query.shape == (16,)
    assert int(np.argmax(vectors @ query)) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_dimension_is_learnt_from_the_first_response(embedding_server, provider):
    emb = _client(provider, _url(embedding_server, provider))
    emb.embed_documents(["one", "two"])
    assert embedding_server.embed_count == 1
    assert emb.dimension == 16
    assert embedding_server.embed_count == 1  # already known: no extra request


@pytest.mark.parametrize("provider", PROVIDERS)
def test_dimension_asked_first_costs_one_probe(embedding_server, provider):
    emb = _client(provider, _url(embedding_server, provider))
    assert emb.dimension == 16
    assert emb.dimension == 16
    assert embedding_server.embed_count == 1


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("count", "batch"), [(7, 3), (6, 3), (1, 4), (5, 1)])
def test_batching_sends_ceil_n_over_batch_requests(embedding_server, provider, count, batch):
    emb = _client(provider, _url(embedding_server, provider), batch_size=batch)
    vectors = emb.embed_documents([f"text number {i}" for i in range(count)])
    assert vectors.shape[0] == count
    assert embedding_server.embed_count == -(-count // batch)
    assert sum(embedding_server.batch_sizes()) == count
    assert max(embedding_server.batch_sizes()) <= batch


@pytest.mark.parametrize("provider", PROVIDERS)
def test_bearer_key_is_sent(embedding_server, provider):
    _client(provider, _url(embedding_server, provider)).embed_query("x")
    assert embedding_server.embed_requests()[0].headers["Authorization"] == f"Bearer {API_KEY}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_down_is_a_retryable_error_naming_the_host(provider):
    port = _free_port()  # bound then released: nothing listens there
    base = f"http://127.0.0.1:{port}" + ("/v1" if provider == "openai" else "")
    emb = _client(provider, base)
    with pytest.raises(EmbeddingError) as info:
        emb.embed_documents(["hello"])
    assert info.value.retryable is True
    assert f"127.0.0.1:{port}" in info.value.message
    assert "refused" in info.value.message
    _assert_key_hidden(info.value, emb)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_timeout_is_retryable(embedding_server, provider):
    embedding_server.fail_next(slow(3.0))
    emb = _client(provider, _url(embedding_server, provider), timeout=0.3)
    with pytest.raises(EmbeddingError) as info:
        emb.embed_query("hello")
    assert info.value.retryable is True
    assert "timed out" in info.value.message and str(embedding_server.port) in info.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_wrong_key_is_rejected_clearly_and_never_shown(embedding_server, provider):
    wrong = "sk-wrong-key-0000000000"
    emb = _client(provider, _url(embedding_server, provider), api_key=wrong)
    with pytest.raises(EmbeddingAuthError) as info:
        emb.embed_query("hello")
    assert "API key rejected" in info.value.message
    assert info.value.retryable is False
    # the server echoed the wrong key back in its body; it must not survive into the error
    assert "Incorrect API key" in (info.value.detail or "")
    for text in (str(info.value), info.value.detail or "", repr(emb)):
        assert wrong not in text


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_error_is_retryable_and_retry_works(embedding_server, provider, status):
    embedding_server.fail_next(http_error(status, "model crashed"))
    emb = _client(provider, _url(embedding_server, provider))
    with pytest.raises(EmbeddingError) as info:
        emb.embed_documents(["hello"])
    assert type(info.value) is EmbeddingError and info.value.retryable is True
    assert f"HTTP {status}" in info.value.message
    _assert_key_hidden(info.value, emb)
    assert emb.embed_documents(["hello"]).shape == (1, 16)  # the next attempt succeeds


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_429_carries_the_servers_reason(embedding_server, provider):
    quota = "You exceeded your current quota, please check your plan and billing details."
    embedding_server.fail_next(http_error(429, quota))
    emb = _client(provider, _url(embedding_server, provider))
    with pytest.raises(EmbeddingError) as info:
        emb.embed_documents(["hello"])
    assert f"HTTP 429: {quota}; try again later." in info.value.message and info.value.retryable is True
    _assert_key_hidden(info.value, emb)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("raw", ['{"data": [oops', "<html><body>Bad gateway</body></html>", ""])
def test_malformed_json_is_a_clear_error(embedding_server, provider, raw):
    embedding_server.fail_next(garbage(raw))
    emb = _client(provider, _url(embedding_server, provider))
    with pytest.raises(EmbeddingRejected, match="not JSON"):
        emb.embed_documents(["hello"])


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("raw", ['{"object": "list"}', '{"data": [{"index": 0}]}', '[1, 2]',
                                 '{"embeddings": [[0, 0, 0]], "data": [{"index": 0, "embedding": [0, 0, 0]}]}',
                                 '{"embeddings": [["a"]], "data": [{"index": 0, "embedding": ["a"]}]}'])
def test_json_without_usable_embeddings_is_rejected(embedding_server, provider, raw):
    embedding_server.fail_next(garbage(raw))
    emb = _client(provider, _url(embedding_server, provider))
    with pytest.raises(EmbeddingRejected) as info:
        emb.embed_documents(["hello"])
    assert str(embedding_server.port) in info.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_wrong_number_of_vectors_is_rejected(embedding_server, provider):
    one = embedding_server.vectors(["a"])[0]
    body = '{"embeddings": [%s], "data": [{"index": 0, "embedding": %s}]}' % (one, one)
    embedding_server.fail_next(garbage(body))
    emb = _client(provider, _url(embedding_server, provider))
    with pytest.raises(EmbeddingRejected, match="1 vectors for 2 texts"):
        emb.embed_documents(["a", "b"])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unknown_model_shows_the_servers_reason(embedding_server, provider):
    emb = _client(provider, _url(embedding_server, provider), model="no-such-model")
    with pytest.raises(EmbeddingRejected) as info:
        emb.embed_query("hello")
    assert "HTTP 404" in info.value.message and "no-such-model" in info.value.message
    assert info.value.retryable is False


@pytest.mark.parametrize("provider", PROVIDERS)
def test_dimension_change_mid_life_is_refused(embedding_server, provider):
    emb = _client(provider, _url(embedding_server, provider))
    emb.embed_query("hello")
    other = [[1.0] * 8]
    embedding_server.fail_next(garbage('{"embeddings": %s, "data": [{"index": 0, "embedding": %s}]}' % (other, other[0])))
    with pytest.raises(EmbeddingRejected, match="changed dimension from 16 to 8"):
        emb.embed_query("hello")


def test_ollama_sends_no_authorization_without_a_key(embedding_server):
    embedding_server.api_key = None
    _client("ollama", embedding_server.ollama_url, api_key="").embed_query("x")
    assert "Authorization" not in embedding_server.embed_requests()[0].headers


def test_unknown_host_name_is_a_retryable_error():
    # .invalid is reserved (RFC 2606): it never resolves
    emb = _client("openai", "http://embeddings.invalid/v1")
    with pytest.raises(EmbeddingError) as info:
        emb.embed_query("hello")
    assert info.value.retryable is True
    assert "embeddings.invalid" in info.value.message and "host name not found" in info.value.message
