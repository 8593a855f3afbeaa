"""The engine's error family, and its one registry.

Every error carries a message that is safe to show an admin (no secrets, no tracebacks).
Each class declares what the edges make of it: ``exit_code`` (the CLI), ``http_status`` and a
stable ``code`` (the HTTP API, MCP). Defining a subclass registers it by name — here or in any
module (sources, Drive, a plugin), at import — so the hand-off and the job queue, which carry an
error as its name and module, rebuild it as its own class on the other side (``error_class``).
"""

from __future__ import annotations

import importlib
import logging
import re

log = logging.getLogger(__name__)

# Every CoreError class by its name: names are unique across the family (a second class of the
# same name elsewhere is refused where it is defined), so a name is enough to find a class.
_REGISTRY: dict[str, type[CoreError]] = {}


def snake_case(name: str) -> str:
    """NotFound → not_found (each capital starts a word, as codes have always been made: LLMError → l_l_m_error)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _register(cls: type[CoreError]) -> None:
    # A ``code`` written in a class body holds for its subclasses too (ApiTokenLocked answers
    # not_authenticated); otherwise a class's code is its own name in snake case.
    if "code" in cls.__dict__:
        cls._declared_code = cls.__dict__["code"]
    else:
        cls.code = cls._declared_code or snake_case(cls.__name__)
    if not isinstance(cls.exit_code, int) or not isinstance(cls.http_status, int) or not 400 <= cls.http_status <= 599:
        raise TypeError(f"{cls.__qualname__}: exit_code must be an int and http_status an int from 400 to 599")
    known = _REGISTRY.get(cls.__name__)
    if known is not None and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
        raise TypeError(f"two CoreError classes are named {cls.__name__} ({known.__module__} and {cls.__module__}): "
                        "an error's name must say which one it is")
    _REGISTRY[cls.__name__] = cls  # the same class again (a module reloaded): the newer one


class CoreError(Exception):
    """Base of every error the engine raises on purpose."""

    exit_code = 1
    http_status = 500  # the server's own state unless a class says otherwise
    code: str  # set by _register
    _declared_code = ""
    retryable = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _register(cls)

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
    http_status = 404


class AlreadyExists(CoreError):
    exit_code = 4
    http_status = 409


class PermissionDenied(CoreError):
    exit_code = 5
    http_status = 403


class NotAuthenticated(CoreError):
    """No caller could be established: a missing, malformed, wrong, expired or revoked API token,
    or the token of a disabled account. One stable ``code`` the HTTP API answers 401 with."""

    exit_code = 13
    http_status = 401
    code = "not_authenticated"


class InvalidSettings(CoreError):
    exit_code = 2
    http_status = 422


class InvalidInput(CoreError):
    exit_code = 2
    http_status = 422


class ParseError(CoreError):
    """A document could not be turned into text (corrupt, encrypted, unsupported...)."""

    exit_code = 6
    http_status = 422


class UnsupportedFormat(ParseError):
    http_status = 415


class FileTooLarge(ParseError):
    http_status = 413


class FetchError(ParseError):
    """A URL could not be fetched (blocked address, timeout, too large, HTTP error)."""


class BlockedAddress(FetchError):
    pass


class EmbeddingError(CoreError):
    """The embedding model failed or an embedding API is unreachable."""

    exit_code = 7
    http_status = 502
    retryable = True


class ReindexNeeded(CoreError):
    """A knowledge base was built with another embedding model or dimension."""

    exit_code = 8
    http_status = 409


class StoreError(CoreError):
    exit_code = 9


class StoreBusy(StoreError):
    """The embedded vector store is held by another process."""

    http_status = 503
    retryable = True


class StoreUnavailable(StoreError):
    """The vector store's server cannot be reached now (refused, timed out, or answering 502-504):
    worth trying again later (HTTP 503, a job retried with a pause)."""

    http_status = 503
    retryable = True
    code = "store_unavailable"
    retry_after_seconds = 10


class DiskFull(StoreError):
    """Too little free space on the data folder's disk to write safely (core/storage/diskspace.py)."""

    http_status = 507


class LLMError(CoreError):
    """A chat model provider is down, refused, or answered something unusable."""

    exit_code = 10
    http_status = 502
    retryable = True


class Cancelled(CoreError):
    exit_code = 11
    http_status = 409


_register(CoreError)


def error_class(name: str, module: str = "") -> type[CoreError]:
    """The CoreError class called ``name``; ``module``: where it is defined, imported here when it is
    one of ours and not loaded yet (a reply from the dashboard naming a Drive error the CLI has not
    imported). An outside plugin's errors register when the plugins load. CoreError for a name
    no class has."""
    found = _REGISTRY.get(name)
    if found is None and (module == "core" or module.startswith("core.")):
        try:
            importlib.import_module(module)
        except ImportError:  # a module a newer release has and this one has not
            log.warning("error class %s: its module %s is not in this release", name, module)
        found = _REGISTRY.get(name)
    if found is None:
        from core.plugins import load_plugins  # imports nothing of ours: no circle

        try:
            load_plugins()
        except ImportError as exc:
            log.warning("error class %s: %s", name, exc)
        found = _REGISTRY.get(name)
    return found or CoreError


def is_core_class(cls: type) -> bool:
    """Defined in core/ (pinned by tests/architecture/test_error_registry.py), not by a plugin."""
    return cls.__module__ == "core" or cls.__module__.startswith("core.")


def error_classes(*, core_only: bool = False) -> dict[str, type[CoreError]]:
    """Every CoreError class registered so far (those of the modules imported in this process), by
    name; ``core_only``: core's own, without plugins' (whose codes and statuses are their own)."""
    return {name: cls for name, cls in _REGISTRY.items() if not core_only or is_core_class(cls)}


def error_identity(exc: CoreError) -> dict[str, str]:
    """What names ``exc``'s class across a process boundary: its name and module."""
    return {"kind": type(exc).__name__, "module": type(exc).__module__}


def rebuild_error(kind: str, message: str, *, module: str = "", key: str = "", params: dict | None = None) -> CoreError:
    """An error of the class ``kind`` (see ``error_class``) carrying ``message``; its nearest base
    that takes a message when its own constructor differs (ApiTokenLocked takes times: it comes
    back a NotAuthenticated); a plain CoreError for a name no class has."""
    for candidate in error_class(kind, module).__mro__:
        if isinstance(candidate, type) and issubclass(candidate, CoreError):
            try:
                return candidate(message, key=key, params=params)
            except TypeError:
                continue
    return CoreError(message, key=key, params=params)


def error_named(kind: str, message: str) -> CoreError:
    """An error of the CoreError class called ``kind`` carrying ``message`` (see ``rebuild_error``)."""
    return rebuild_error(kind, message)
