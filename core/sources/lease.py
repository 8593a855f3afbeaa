"""A database lease so two syncs of one source never overlap, across threads and processes.

Taking the lease is one conditional UPDATE inside a write transaction (BEGIN IMMEDIATE on
SQLite, the advisory write lock on PostgreSQL): only one writer can see it free.

The holder is named ``host:pid:process-start:random``. A lease is free when nobody holds it,
when it has expired (``LEASE_SECONDS`` without a renewal), or when its holder ran on this host
and that process is gone — a killed sync does not block the next one until its lease expires
(the start time tells a reused pid from the holder). A holder on another host (a shared
PostgreSQL database) is judged by expiry only.

While a sync runs, a heartbeat thread renews the lease every ``HEARTBEAT_SECONDS`` — by time,
however long one item takes (an OCR'd scan). If a renewal finds the lease held by someone else
(this process stalled past the expiry and another sync took over), the lease is lost: ``check``
raises ``LeaseLost`` at the sync's next step, so two syncs never go on side by side.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import datetime, timedelta, timezone

from sqlalchemy.exc import SQLAlchemyError

from core.db.database import Database
from core.errors import CoreError, NotFound
from core.ingest.jobs import process_alive
from core.sources.base import SyncBusy
from core.sources.models import SyncedSource

log = logging.getLogger(__name__)

LEASE_SECONDS = 60.0
HEARTBEAT_SECONDS = 15.0
_HOST = socket.gethostname()


class LeaseLost(CoreError):
    """Another sync took this source over (this one stalled past its lease): this one stops."""

    exit_code = 20
    http_status = 409


def _aware(value: datetime | None) -> datetime | None:
    # SQLite hands datetimes back without a zone; they were written in UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from /proc); "" where unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            # the command name (field 2) may hold spaces and parentheses: count from its end
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def new_holder() -> str:
    pid = os.getpid()
    return f"{_HOST}:{pid}:{process_start(pid)}:{uuid.uuid4().hex[:8]}"


def holder_gone(holder: str) -> bool:
    """Whether ``holder`` is a process of this host that no longer runs (another host's: unknown, False)."""
    parts = holder.split(":")
    if len(parts) < 3 or parts[0] != _HOST or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if not process_alive(pid):
        return True
    started = parts[2] if len(parts) == 4 else ""  # a holder named before start times were recorded
    return bool(started) and process_start(pid) not in ("", started)


def acquire(db: Database, source_id: str, holder: str, ttl: float = LEASE_SECONDS) -> None:
    now = datetime.now(timezone.utc)
    with db.write() as s:
        src = s.get(SyncedSource, source_id)
        if src is None:
            raise NotFound(f"source '{source_id}' not found")
        until = _aware(src.lease_until)
        held = src.lease_owner and src.lease_owner != holder and until is not None and until > now
        if held and not holder_gone(src.lease_owner):
            raise SyncBusy(f"a sync of '{src.title or src.id}' is already running; try again when it ends")
        src.lease_owner, src.lease_until = holder, now + timedelta(seconds=ttl)
        s.add(src)


def renew(db: Database, source_id: str, holder: str, ttl: float = LEASE_SECONDS) -> bool:
    """Extend the lease; False when ``holder`` no longer holds it (it was taken over)."""
    with db.write() as s:
        src = s.get(SyncedSource, source_id)
        if src is None or src.lease_owner != holder:
            return False
        src.lease_until = datetime.now(timezone.utc) + timedelta(seconds=ttl)
        s.add(src)
        return True


def holds(db: Database, source_id: str, holder: str) -> bool:
    with db.read() as s:
        src = s.get(SyncedSource, source_id)
        return src is not None and src.lease_owner == holder


def release(db: Database, source_id: str, holder: str) -> None:
    with db.write() as s:
        src = s.get(SyncedSource, source_id)
        if src is not None and src.lease_owner == holder:
            src.lease_owner, src.lease_until = "", None
            s.add(src)


class Lease:
    """The lease of one sync: taken on enter, renewed by a heartbeat, let go on exit."""

    def __init__(self, db: Database, source_id: str, *, ttl: float = LEASE_SECONDS,
                 heartbeat: float = HEARTBEAT_SECONDS):
        self.db, self.source_id, self.ttl, self.heartbeat = db, source_id, ttl, heartbeat
        self.holder = new_holder()
        self._lost = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Lease":
        acquire(self.db, self.source_id, self.holder, self.ttl)
        self._thread = threading.Thread(target=self._beat, name=f"ragdesk-lease-{self.source_id[:8]}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        release(self.db, self.source_id, self.holder)

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat):
            try:
                if not renew(self.db, self.source_id, self.holder, self.ttl):
                    self._lost.set()
                    return
            except SQLAlchemyError as exc:  # the database is briefly away: the next beat tries again
                log.warning("could not renew the sync lease of source %s: %s", self.source_id, type(exc).__name__)

    def check(self) -> None:
        """Raise LeaseLost when another sync holds the source now (asked of the database)."""
        if self._lost.is_set() or not holds(self.db, self.source_id, self.holder):
            self._lost.set()
            raise LeaseLost("another sync took this source over while this one was stalled; this one stopped "
                            "(its changes so far are kept, the rest is synced by the next run)")
