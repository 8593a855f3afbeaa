"""Password guessing is slowed down and locked out per user name and per client, and the lock
message says when to retry without telling whether the user exists."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text

from core.accounts import users
from core.db.database import Database, sqlite_url
from core.errors import PermissionDenied
from core.accounts.signin_guard import SignInLocked, SignInPolicy

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
FAST = SignInPolicy(failure_delay_seconds=0)  # the delay itself is measured once, at the engine


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path):
    url = sqlite_url(tmp_path / "guard.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    database = Database(url)
    users.sign_up(database, "alice", "correct horse 1")
    yield database
    database.dispose()


def _fail(db, name, n, client="", now=T0):
    for _ in range(n):
        with pytest.raises(PermissionDenied, match="wrong user name or password"):
            users.authenticate(db, name, "guess guess", client=client, policy=FAST, now=now)


def test_five_failures_lock_the_name_even_for_the_right_password(db):
    _fail(db, "alice", 4)
    assert users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0).name == "alice"  # 4: still open
    _fail(db, "alice", 5)
    with pytest.raises(SignInLocked, match=r"try again after 09:15 UTC \(in 14 min\)") as locked:
        users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0 + timedelta(minutes=1))
    assert locked.value.until == T0 + timedelta(minutes=15)
    later = T0 + timedelta(minutes=15, seconds=1)
    assert users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=later).name == "alice"


def test_unknown_name_locks_the_same_way(db):
    _fail(db, "nobody", 5)
    with pytest.raises(SignInLocked) as unknown:
        users.authenticate(db, "nobody", "guess guess", policy=FAST, now=T0)
    _fail(db, "alice", 5)
    with pytest.raises(SignInLocked) as known:
        users.authenticate(db, "alice", "guess guess", policy=FAST, now=T0)
    assert str(unknown.value) == str(known.value)  # the message tells nothing about existence


def test_name_variants_share_one_counter(db):
    _fail(db, "Alice", 3)
    _fail(db, "ＡＬＩＣＥ", 2)  # full-width letters: the same name
    with pytest.raises(SignInLocked):
        users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0)


def test_one_client_guessing_many_names_is_locked(db):
    for i in range(10):
        _fail(db, f"user{i}", 1, client="203.0.113.7")
    with pytest.raises(SignInLocked):
        users.authenticate(db, "alice", "correct horse 1", client="203.0.113.7", policy=FAST, now=T0)
    # another client is not locked, and neither is the name
    assert users.authenticate(db, "alice", "correct horse 1", client="198.51.100.2", policy=FAST, now=T0)


def test_old_failures_are_forgotten_and_success_clears_the_name(db):
    _fail(db, "alice", 4)
    _fail(db, "alice", 4, now=T0 + timedelta(minutes=20))  # a new window: 4, not 8
    users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0 + timedelta(minutes=20))
    _fail(db, "alice", 4, now=T0 + timedelta(minutes=21))  # the success reset the count
    assert users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0 + timedelta(minutes=21))


def test_admin_reset_lifts_the_name_lock(db):
    root = users.actor_of(users.authenticate(db, "alice", "correct horse 1", policy=FAST))
    users.sign_up(db, "bob", "battery staple 2")
    for _ in range(5):
        with pytest.raises(PermissionDenied):
            users.authenticate(db, "bob", "guess guess", policy=FAST)
    with pytest.raises(SignInLocked):
        users.authenticate(db, "bob", "battery staple 2", policy=FAST)
    users.reset_password(db, root, "bob", "fresh start 3")
    assert users.authenticate(db, "bob", "fresh start 3", policy=FAST).name == "bob"


def test_engine_failures_cost_time(engine):
    engine.sign_up("alice", "correct horse 1")
    start = time.monotonic()
    with pytest.raises(PermissionDenied):
        engine.sign_in("alice", "guess guess", client="127.0.0.1")
    assert time.monotonic() - start >= 0.5


def test_finished_counters_do_not_pile_up(db):
    for i in range(3):
        _fail(db, f"random-{i}", 1)
    _fail(db, "alice", 5)
    _fail(db, "someone", 1, now=T0 + timedelta(minutes=30))  # every earlier window and lock is over
    with db.engine.connect() as conn:
        keys = {r[0] for r in conn.execute(text("select key from signinthrottle"))}
    assert keys == {"name:someone"}
