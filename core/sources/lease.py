"""A database lease so two syncs of one source never overlap, across threads and processes.

Taking the lease is one conditional UPDATE inside a write transaction (BEGIN IMMEDIATE on
SQLite, the advisory write lock on PostgreSQL): only one writer can see it free. A holder
that dies leaves a lease that expires after ``LEASE_SECONDS``; a live holder renews it.
"""

from __future__ import annotations

import os
import socket
import uuid
from datetime import datetime, timedelta, timezone

from core.db.database import Database
from core.errors import NotFound
from core.sources.base import SyncBusy
from core.sources.models import SyncedSource

LEASE_SECONDS = 600


def _aware(value: datetime | None) -> datetime | None:
    # SQLite hands datetimes back without a zone; they were written in UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def new_holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def acquire(db: Database, source_id: str, holder: str) -> None:
    now = datetime.now(timezone.utc)
    with db.write() as s:
        src = s.get(SyncedSource, source_id)
        if src is None:
            raise NotFound(f"source '{source_id}' not found")
        until = _aware(src.lease_until)
        if src.lease_owner and src.lease_owner != holder and until is not None and until > now:
            raise SyncBusy(f"a sync of '{src.title or src.id}' is already running; try again when it ends")
        src.lease_owner, src.lease_until = holder, now + timedelta(seconds=LEASE_SECONDS)
        s.add(src)


def renew(db: Database, source_id: str, holder: str) -> None:
    with db.write() as s:
        src = s.get(SyncedSource, source_id)
        if src is not None and src.lease_owner == holder:
            src.lease_until = datetime.now(timezone.utc) + timedelta(seconds=LEASE_SECONDS)
            s.add(src)


def release(db: Database, source_id: str, holder: str) -> None:
    with db.write() as s:
        src = s.get(SyncedSource, source_id)
        if src is not None and src.lease_owner == holder:
            src.lease_owner, src.lease_until = "", None
            s.add(src)
