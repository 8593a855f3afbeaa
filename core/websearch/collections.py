"""Web-search collections: their names, their records, their expiry.

A search's pages go into ``<prefix>web-search-<sha256 of the queries joined by '-'>`` (the
``web-search-…`` part cut to 63 characters, as in the reference), overwritten when the same
queries come again. Unlike the reference they do not pile up: each is recorded with its creation
time and removed once older than ``web_search.web_search_collection_ttl_hours`` — on the next web
search and by ``python -m core doctor``.
"""

from __future__ import annotations

import hashlib
import threading
from datetime import datetime, timedelta, timezone

from sqlmodel import select

from core.db.database import Database
from core.db.models import WebSearchCollection, utcnow
from core.vectorstore.base import VectorStore, collection_prefix

WEB_PREFIX = "web-search-"
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def collection_lock(name: str) -> threading.Lock:
    """One lock per collection in this process: an overwrite and a search never interleave."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(name, threading.Lock())


def collection_name(queries: list[str]) -> str:
    digest = hashlib.sha256("-".join(queries).encode("utf-8")).hexdigest()
    return collection_prefix() + f"{WEB_PREFIX}{digest}"[:63]


def is_web_collection(name: str) -> bool:
    return name.startswith(collection_prefix() + WEB_PREFIX)


def record(db: Database, name: str, queries: list[str], urls: list[str]) -> None:
    """(Re)record ``name`` as created now: an overwrite restarts its lifetime."""
    with db.write() as s:
        row = s.get(WebSearchCollection, name) or WebSearchCollection(name=name)
        row.queries, row.urls, row.created_at = list(queries), list(urls), utcnow()
        s.add(row)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)  # SQLite returns naive UTC


def live_names(db: Database) -> set[str]:
    with db.read() as s:
        return set(s.exec(select(WebSearchCollection.name)))


def _cutoff(ttl_hours: float, now: datetime | None) -> datetime:
    return _aware(now or utcnow()) - timedelta(hours=ttl_hours)


def expired(db: Database, ttl_hours: float, now: datetime | None = None) -> list[str]:
    cutoff = _cutoff(ttl_hours, now)
    with db.read() as s:
        rows = s.exec(select(WebSearchCollection)).all()
    return sorted(r.name for r in rows if _aware(r.created_at) < cutoff)


def remove_expired(store: VectorStore, db: Database, ttl_hours: float, now: datetime | None = None) -> list[str]:
    """Drop the collections older than the TTL and their records; the names removed."""
    cutoff = _cutoff(ttl_hours, now)
    removed = []
    for name in expired(db, ttl_hours, now):
        with collection_lock(name):
            with db.write() as s:  # checked again under the lock: a search may have just renewed it
                row = s.get(WebSearchCollection, name)
                if row is None or _aware(row.created_at) >= cutoff:
                    continue
                s.delete(row)
            store.drop_collection(name)
            removed.append(name)
    return removed
