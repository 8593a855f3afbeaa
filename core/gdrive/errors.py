"""Drive errors: each message is safe to show (no tokens, no secrets)."""

from __future__ import annotations

from core.errors import CoreError
from core.sources.base import SourceUnavailable


class DriveError(CoreError):
    exit_code = 22
    http_status = 502


class NotConnected(DriveError):
    """The user has no Drive connection."""


class ReconnectNeeded(SourceUnavailable):
    """Google refused the stored tokens (revoked, expired, password change): connect again."""

    state = "reconnect"
    exit_code = 23


class DriveSetupIncomplete(DriveError):
    exit_code = 2


class ChangesTokenExpired(DriveError):
    """HTTP 410 from changes.list: the saved page token is too old; list everything instead."""


class ItemNotImportable(DriveError):
    """One file cannot be imported (unsupported type, export too large): fails alone."""
