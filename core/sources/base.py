"""The source protocol: what the sync engine needs from any remote document source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from core.errors import CoreError
from core.ingest.service import Upload


class SyncBusy(CoreError):
    """Another sync of the same source is running (in this or another process)."""

    exit_code = 20
    http_status = 409


class SourceUnavailable(CoreError):
    """The source cannot be read now (revoked access, remote outage); the sync stops for it."""

    exit_code = 21
    http_status = 502


@dataclass(frozen=True)
class RemoteItem:
    """One document of a source, as its listing describes it.

    ``version`` changes exactly when the content changes (an md5, a modified time, a hash
    of the fetched text); a rename or a move within the source leaves it alone.
    """

    item_id: str
    name: str
    mime: str = ""
    version: str = ""
    parents: tuple[str, ...] = ()
    meta: dict = field(default_factory=dict, hash=False, compare=False)  # kept on the file (links, times)


@dataclass
class Listing:
    """What changed since ``cursor``.

    ``full``: ``items`` is everything the source holds now (anything else held is gone).
    Otherwise ``items`` are the changed or new ones and ``removed`` the ids gone since the cursor.
    """

    items: list[RemoteItem]
    full: bool
    removed: list[str] = field(default_factory=list)
    cursor: str = ""  # saved after a successful sync, handed back next time
    # Items whose state could not be read this run (a page that did not load): left as they
    # are — neither updated nor removed — and reported as failed.
    errors: dict[str, str] = field(default_factory=dict)
    # Items left out on purpose (an unsupported type, a shortcut): id -> (name, why); reported, not retried.
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)


class Source(Protocol):
    kind: str

    def listing(self, cursor: str) -> Listing:
        """Changes since ``cursor`` ("" = a full listing). Raises SourceUnavailable."""

    def fetch(self, item: RemoteItem) -> Upload:
        """The item's content, ready for the ingest pipeline. Raises CoreError for this item alone."""
