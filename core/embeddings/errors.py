"""Embedding errors that are not worth retrying.

``EmbeddingError`` (core.errors) is retryable: the service is down, slow or failing. These
subclasses say the request itself will keep failing until an admin changes something.
"""

from __future__ import annotations

from core.errors import EmbeddingError


class EmbeddingAuthError(EmbeddingError):
    """The API refused the key (HTTP 401/403)."""

    retryable = False


class EmbeddingRejected(EmbeddingError):
    """The request will keep failing as sent: refused (other 4xx), or answered with something that
    is not a set of usable vectors."""

    retryable = False


class EmbeddingModelUnavailable(EmbeddingError):
    """A bundled model package is missing or broken (an installation problem)."""

    retryable = False
