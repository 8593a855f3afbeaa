"""The engine's error family.

Every error carries a message that is safe to show an admin (no secrets, no tracebacks).
The edges translate them: the dashboard into ``st.error``, the CLI into an exit code.
"""

from __future__ import annotations


class CoreError(Exception):
    """Base of every error the engine raises on purpose."""

    exit_code = 1
    retryable = False

    def __init__(self, message: str, *, detail: str | None = None, key: str = "", params: dict | None = None):
        super().__init__(message)
        self.message = message
        # detail is for logs only (may be long); never contains secrets either
        self.detail = detail
        # A message key and its values (see core/messages.py), stored beside the English text so an
        # interface can say it in its reader's language; "" when there is only the English text.
        self.key = key
        self.params = dict(params or {})

    def __str__(self) -> str:
        return self.message

    @classmethod
    def of(cls, said, *, detail: str | None = None):
        """This error saying ``said`` (a ``core.messages.Said``): its English text, key and values."""
        return cls(said.text, detail=detail, key=said.key, params=said.params)


class NotFound(CoreError):
    exit_code = 3


class AlreadyExists(CoreError):
    exit_code = 4


class PermissionDenied(CoreError):
    exit_code = 5


class NotAuthenticated(CoreError):
    """No caller could be established: a missing, malformed, wrong, expired or revoked API token,
    or the token of a disabled account. One stable ``code`` the HTTP API answers 401 with."""

    exit_code = 13
    code = "not_authenticated"


class InvalidSettings(CoreError):
    exit_code = 2


class InvalidInput(CoreError):
    exit_code = 2


class ParseError(CoreError):
    """A document could not be turned into text (corrupt, encrypted, unsupported...)."""

    exit_code = 6


class UnsupportedFormat(ParseError):
    pass


class FileTooLarge(ParseError):
    pass


class FetchError(ParseError):
    """A URL could not be fetched (blocked address, timeout, too large, HTTP error)."""


class BlockedAddress(FetchError):
    pass


class EmbeddingError(CoreError):
    """The embedding model failed or an embedding API is unreachable."""

    exit_code = 7
    retryable = True


class ReindexNeeded(CoreError):
    """A knowledge base was built with another embedding model or dimension."""

    exit_code = 8


class StoreError(CoreError):
    exit_code = 9


class StoreBusy(StoreError):
    """The embedded vector store is held by another process."""

    retryable = True


class StoreUnavailable(StoreError):
    """The vector store's server cannot be reached now (refused, timed out, or answering 502-504):
    worth trying again later (HTTP 503, a job retried with a pause)."""

    retryable = True
    code = "store_unavailable"
    retry_after_seconds = 10


class DiskFull(StoreError):
    """Too little free space on the data folder's disk to write safely (core/storage/diskspace.py)."""


class LLMError(CoreError):
    """A chat model provider is down, refused, or answered something unusable."""

    exit_code = 10
    retryable = True


class Cancelled(CoreError):
    exit_code = 11


def error_named(kind: str, message: str) -> CoreError:
    """An error of the CoreError class called ``kind`` (one loaded in this process: it was raised
    here), carrying ``message``; its nearest base that takes a message when its own constructor
    differs; a plain CoreError for a name not found."""
    todo, found = [CoreError], None
    while todo and found is None:
        cls = todo.pop()
        found = cls if cls.__name__ == kind else None
        todo.extend(cls.__subclasses__())
    for candidate in (found or CoreError).__mro__:
        if isinstance(candidate, type) and issubclass(candidate, CoreError):
            try:
                return candidate(message)
            except TypeError:
                continue
    return CoreError(message)
