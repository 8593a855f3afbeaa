"""make_embedder: choosing, caching and refusing embedders from the settings."""

from __future__ import annotations

import threading

import pytest

from core.embeddings.factory import LOCAL_MODELS, make_embedder
from core.embeddings.fake import HashEmbedder
from core.embeddings.ollama_api import OllamaEmbedder
from core.embeddings.openai_api import OpenAIEmbedder
from core.errors import InvalidSettings
from core.settings.model import EmbeddingSettings


def test_local_models_list_what_ships():
    assert set(LOCAL_MODELS) == {"multilingual-e5-small", "all-minilm-l6-v2", "hash-64"}
    assert LOCAL_MODELS["multilingual-e5-small"].id == "local/multilingual-e5-small"
    assert LOCAL_MODELS["all-minilm-l6-v2"].id == "local/all-minilm-l6-v2"
    assert {m.dimension for m in LOCAL_MODELS.values()} == {384, 64}
    # the default settings name a model that ships
    assert EmbeddingSettings().model in LOCAL_MODELS


def test_hash_model_is_built_and_cached():
    first = make_embedder(EmbeddingSettings(model="hash-64"))
    assert isinstance(first, HashEmbedder) and first.id == LOCAL_MODELS["hash-64"].id and first.dimension == 64
    assert make_embedder(EmbeddingSettings(model=" hash-64 ")) is first


def test_recorded_ids_name_the_same_cached_models():
    assert make_embedder(EmbeddingSettings(model="test/hash-64")) is make_embedder(EmbeddingSettings(model="hash-64"))
    assert make_embedder(EmbeddingSettings(model="test/hash-24")).id == "test/hash-24"


def test_other_hash_dimensions_for_dimension_change_tests():
    emb = make_embedder(EmbeddingSettings(model="hash-32"))
    assert emb.dimension == 32 and emb.id == "test/hash-32"


def test_concurrent_callers_share_one_instance():
    barrier = threading.Barrier(8)
    seen: list[object] = []

    def call() -> None:
        barrier.wait()
        seen.append(make_embedder(EmbeddingSettings(model="hash-48")))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and len({id(e) for e in seen}) == 1


@pytest.mark.parametrize("name", ["gpt-embedding", "multilingual-e5-large", "", "hash-3"])
def test_unknown_local_model_lists_the_choices(name):
    with pytest.raises(InvalidSettings) as info:
        make_embedder(EmbeddingSettings(model=name))
    if not name.startswith("hash"):
        for choice in LOCAL_MODELS:
            assert choice in info.value.message


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_api_providers_need_url_and_model(provider):
    with pytest.raises(InvalidSettings, match="base URL"):
        make_embedder(EmbeddingSettings(provider=provider, model="m"))
    with pytest.raises(InvalidSettings, match="model name"):
        make_embedder(EmbeddingSettings(provider=provider, model=" ", base_url="http://127.0.0.1:1"))
    with pytest.raises(InvalidSettings, match="http"):
        make_embedder(EmbeddingSettings(provider=provider, model="m", base_url="ftp://files.example"))


def test_api_embedders_are_cached_per_settings():
    base = dict(provider="openai", model="m", base_url="http://127.0.0.1:1/v1", api_key="k1")
    first = make_embedder(EmbeddingSettings(**base))
    assert isinstance(first, OpenAIEmbedder) and first.id == "openai/m"
    assert make_embedder(EmbeddingSettings(**base)) is first
    other_key = make_embedder(EmbeddingSettings(**{**base, "api_key": "k2"}))
    assert other_key is not first
    ollama = make_embedder(EmbeddingSettings(**{**base, "provider": "ollama"}))
    assert isinstance(ollama, OllamaEmbedder) and ollama.id == "ollama/m"
    assert "k1" not in repr(first)
