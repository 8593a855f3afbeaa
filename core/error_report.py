"""What a failure shows, and to whom.

Provider and library errors can carry a server's own words, a URL with a token, a stack of
library internals. A plain user sees one plain sentence and an error id; an admin sees the
engine's message (which is written to be safe for admins), also with the id; the log keeps the
full text under that id, scrubbed of every secret this process knows.
"""

from __future__ import annotations

import logging
import secrets as pysecrets

from core.errors import (
    AlreadyExists,
    Cancelled,
    CoreError,
    EmbeddingError,
    InvalidInput,
    LLMError,
    NotFound,
    PermissionDenied,
    ReindexNeeded,
    StoreUnavailable,
)
from core.secrets.box import known_secrets, scrub
from core.types import Actor

log = logging.getLogger(__name__)

# Errors about what the user asked for: their message is meant for them.
_USER_FACING = (InvalidInput, NotFound, PermissionDenied, AlreadyExists, Cancelled, ReindexNeeded)


def is_user_facing(exc: BaseException) -> bool:
    """An error about what the user asked for: its message is meant for them."""
    return isinstance(exc, _USER_FACING)


def new_error_id() -> str:
    return pysecrets.token_hex(4)


def shown_error(exc: BaseException, actor: Actor, what: str) -> str:
    """The sentence ``actor`` may see for ``exc``; logs the full, scrubbed text with its id."""
    error_id = new_error_id()
    secrets = known_secrets()
    full = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, CoreError) and exc.detail:
        full += f" | detail: {exc.detail}"
    log.error("%s failed (error id %s): %s", what, error_id, scrub(full, secrets),
              exc_info=not isinstance(exc, CoreError))
    if isinstance(exc, _USER_FACING) or (actor.is_admin and isinstance(exc, CoreError)):
        return f"{scrub(exc.message, secrets)} (error id {error_id})"
    if isinstance(exc, LLMError):
        return f"The language model could not answer right now. Please try again later (error id {error_id})."
    if isinstance(exc, EmbeddingError):
        return f"The search service is unavailable right now. Please try again later (error id {error_id})."
    if isinstance(exc, StoreUnavailable):
        return f"The knowledge base's store cannot be reached right now. Please try again later (error id {error_id})."
    return f"Something went wrong while {what}. An administrator can look it up by its error id ({error_id})."
