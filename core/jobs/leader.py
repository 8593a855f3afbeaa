"""One holder at a time of a duty every process may offer to do (the sync scheduler).

The lease is a database row (``LeaderLease``): holder id ``host:pid:label:random`` and an expiry
the holder pushes forward on each tick. Another process takes it over when it has expired, or at
once when its holder ran on this host and that process is gone. The claim is one write
transaction (``BEGIN IMMEDIATE`` on SQLite, the engine's advisory write lock on PostgreSQL), so
two candidates never both see it free.
"""

from __future__ import annotations

from datetime import timedelta

from core.db.database import Database
from core.db.models import LeaderLease, utcnow
from core.ingest.jobs import HOST, process_alive
from core.jobs.queue import aware

SCHEDULER = "sync-scheduler"


def _holder_gone(holder: str) -> bool:
    host, _, rest = holder.partition(":")
    pid = rest.split(":", 1)[0]
    return host == HOST and pid.isdigit() and not process_alive(int(pid))


def hold(db: Database, name: str, holder: str, lease_seconds: float) -> bool:
    """Take or renew the lease ``name`` for ``holder``; False while someone else holds it."""
    now = utcnow()
    with db.write() as s:
        row = s.get(LeaderLease, name)
        if row is None:
            row = LeaderLease(name=name)
        elif row.holder and row.holder != holder and aware(row.lease_until) > now and not _holder_gone(row.holder):
            return False
        row.holder, row.lease_until, row.renewed_at = holder, now + timedelta(seconds=lease_seconds), now
        s.add(row)
        return True


def release(db: Database, name: str, holder: str) -> None:
    """Let another process take the duty now (this one stops)."""
    with db.write() as s:
        row = s.get(LeaderLease, name)
        if row is not None and row.holder == holder:
            row.holder, row.lease_until = "", now_expired()
            s.add(row)


def now_expired():
    return utcnow() - timedelta(seconds=1)


def holder_of(db: Database, name: str) -> str:
    with db.read() as s:
        row = s.get(LeaderLease, name)
    return row.holder if row is not None and aware(row.lease_until) > utcnow() else ""
