"""Every engine error leaves the API with a status and a stable code (no class falls through to a
bare 500 by accident), and the hand-off brings each one back as its own kind."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.accounts.api_tokens import ApiTokenLocked
from core.api.errors import error_code, http_status
from core.errors import (
    CoreError,
    FileTooLarge,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
    StoreBusy,
)
from core.handoff.commands import error_from_payload, error_payload
from tests.architecture.test_error_registry import import_every_error_module


def test_statuses_and_codes():
    now = datetime.now(UTC)
    cases = [(NotAuthenticated("x"), 401, "not_authenticated"), (NotFound("x"), 404, "not_found"),
             (PermissionDenied("x"), 403, "permission_denied"), (FileTooLarge("x"), 413, "file_too_large"),
             (StoreBusy("x"), 503, "store_busy"), (ApiTokenLocked(now + timedelta(minutes=3), now), 429, "not_authenticated")]
    for exc, status, code in cases:
        assert (http_status(exc), error_code(exc)) == (status, code), type(exc).__name__


def test_every_error_class_has_a_deliberate_status():
    for name, cls in import_every_error_module().items():
        if cls is CoreError:
            continue
        status = http_status(cls.__new__(cls))
        assert status != 500 or name in ("StoreError", "DataFolderUnsafe", "SecretError"), name


def test_an_error_with_its_own_constructor_comes_back_through_the_hand_off_as_its_nearest_kind():
    now = datetime.now(UTC)
    back = error_from_payload(error_payload(ApiTokenLocked(now + timedelta(minutes=2), now)))
    assert isinstance(back, NotAuthenticated) and "too many failed API token checks" in back.message
