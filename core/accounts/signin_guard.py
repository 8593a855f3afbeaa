"""Slow down and lock out password guessing, per user name and per client.

Every password check (a sign-in, or the current password when changing it) is counted twice:
against the user name (whether or not such a user exists, so a lock reveals nothing) and
against the client (browser address) it came from. The attempt is counted *before* bcrypt
runs, in one write transaction (``reserve_attempt``): of forty attempts sent at once, only as
many as the limit reach the password check, the others are refused as locked. A right password
gives its attempt back (``settle_right_password``); a wrong one keeps it counted and waits a
moment. Too many within the window lock that name or that client until the lock ends; while
locked, even the right password is refused with the same message, so guessing on cannot
confirm a password.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlmodel import delete

from core.db.database import Database
from core.db.models import SignInThrottle
from core.errors import PermissionDenied


@dataclass(frozen=True)
class SignInPolicy:
    max_failures_per_name: int = 5
    max_failures_per_client: int = 10  # higher: several people may share one address (a proxy, an office)
    lock_minutes: float = 15.0  # also the window failures are counted in
    failure_delay_seconds: float = 0.5  # every failure costs the guesser this much time


DEFAULT_POLICY = SignInPolicy()


class SignInLocked(PermissionDenied):
    """Too many failed sign-ins: carries when to try again."""

    http_status = 429

    def __init__(self, until: datetime, now: datetime):
        self.until = until
        minutes = max(1, math.ceil((until - now).total_seconds() / 60))
        super().__init__(f"too many failed sign-ins: try again after {until:%H:%M} UTC (in {minutes} min)")


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def throttle_keys(name_key: str, client: str) -> list[tuple[str, int]]:
    """The counters a sign-in attempt touches, with the limit of each (an empty client is the CLI)."""
    policy_keys = [(f"name:{name_key}", 0)]
    if client:
        policy_keys.append((f"client:{client}", 1))
    return policy_keys


def _limit(policy: SignInPolicy, kind: int) -> int:
    return policy.max_failures_per_name if kind == 0 else policy.max_failures_per_client


def reserve_attempt(db: Database, keys: list[tuple[str, int]], policy: SignInPolicy, *, now: datetime) -> None:
    """Count one attempt against every counter in ``keys``, or raise SignInLocked when one is locked.

    One write transaction (SQLite BEGIN IMMEDIATE, a PostgreSQL advisory lock: one writer at a
    time), so parallel attempts are counted one after the other: the one that fills a counter
    sets its lock, and every later one sees it."""
    window = timedelta(minutes=policy.lock_minutes)
    with db.write() as s:
        # counters whose window and lock are over count for nothing: drop them (names tried at
        # random would otherwise pile up)
        over = (SignInThrottle.window_start <= now - window) & \
            (SignInThrottle.locked_until.is_(None) | (SignInThrottle.locked_until <= now))
        s.exec(delete(SignInThrottle).where(over))
        rows = [(s.get(SignInThrottle, key) or SignInThrottle(key=key, failures=0, window_start=now), kind)
                for key, kind in keys]
        active = [u for u in (_aware(row.locked_until) for row, _ in rows) if u is not None and u > now]
        if active:
            raise SignInLocked(max(active), now)  # nothing is written: the transaction rolls back
        _count(s, rows, policy, now=now)


def _count(s, rows: list[tuple[SignInThrottle, int]], policy: SignInPolicy, *, now: datetime) -> None:
    """One more attempt on each counter; the one that reaches its limit locks for the window."""
    window = timedelta(minutes=policy.lock_minutes)
    for row, kind in rows:
        if now - _aware(row.window_start) >= window:  # an old streak no longer counts
            row.failures, row.window_start, row.locked_until = 0, now, None
        row.failures += 1
        if row.failures >= _limit(policy, kind):
            row.locked_until = now + window
        s.add(row)


def locked_until(db: Database, keys: list[tuple[str, int]], *, now: datetime) -> datetime | None:
    """When the latest lock on ``keys`` ends, or None: a read only, for checks cheap enough to run
    on every call (API tokens: 256 random bits are not guessed, so a right token costs no write)."""
    with db.read() as s:
        ends = [_aware(row.locked_until) for key, _ in keys if (row := s.get(SignInThrottle, key)) is not None]
    active = [u for u in ends if u is not None and u > now]
    return max(active) if active else None


def record_failure(db: Database, keys: list[tuple[str, int]], policy: SignInPolicy, *, now: datetime) -> None:
    """Count a failed attempt after the fact (the API-token check: see ``locked_until``) and make
    the caller wait; the counters and locks are the sign-in's own."""
    with db.write() as s:
        rows = [(s.get(SignInThrottle, key) or SignInThrottle(key=key, failures=0, window_start=now), kind)
                for key, kind in keys]
        _count(s, rows, policy, now=now)
    wrong_password(policy)


def wrong_password(policy: SignInPolicy) -> None:
    """The attempt stays counted; the guesser waits."""
    if policy.failure_delay_seconds > 0:
        time.sleep(policy.failure_delay_seconds)


def settle_right_password(db: Database, keys: list[tuple[str, int]], policy: SignInPolicy, *,
                          forgive_name: bool) -> None:
    """A right password gives its reserved attempt back. ``forgive_name``: a successful sign-in
    also forgives the name's earlier failures — never the client's (an attacker signing in to an
    account of their own must not reset the count of their guesses at others)."""
    with db.write() as s:
        for key, kind in keys:
            row = s.get(SignInThrottle, key)
            if row is None:
                continue
            if forgive_name and kind == 0:
                s.delete(row)
                continue
            row.failures = max(0, row.failures - 1)
            if row.failures < _limit(policy, kind):
                row.locked_until = None
            s.add(row)


def clear_name(db: Database, name_key: str) -> None:
    """Forgive a name's failures (an admin reset its password)."""
    with db.write() as s:
        row = s.get(SignInThrottle, f"name:{name_key}")
        if row is not None:
            s.delete(row)
