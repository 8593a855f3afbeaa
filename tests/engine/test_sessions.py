"""Server-side sessions: only a hash is stored; they expire (absolute and idle) and are revoked
at sign-out, password change and when an admin disables the account."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text

from core.accounts import sessions, users
from core.errors import InvalidInput, PermissionDenied
from core.accounts.users import actor_of

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def db(either_database):
    return either_database


def test_token_is_random_and_only_its_hash_is_stored(db, tmp_path):
    alice = users.sign_up(db, "alice", "correct horse 1")
    token = sessions.open_session(db, alice.id, "Chromium on 127.0.0.1", now=T0)
    other = sessions.open_session(db, alice.id, now=T0)
    assert token != other and len(token) >= 43
    with db.engine.connect() as conn:
        stored = [tuple(r) for r in conn.execute(text("select * from usersession"))]
    assert any(sessions.token_hash(token) in row for row in stored)
    assert not any(token in str(value) for row in stored for value in row)
    if db.is_sqlite:  # nor anywhere in the database files
        raw = b"".join(p.read_bytes() for p in tmp_path.glob("sessions.db*"))
        assert token.encode() not in raw
    assert sessions.session_user(db, token, now=T0).name == "alice"


def test_idle_and_absolute_expiry(db):
    alice = users.sign_up(db, "alice", "correct horse 1")
    idle = sessions.open_session(db, alice.id, now=T0)
    assert sessions.session_user(db, idle, now=T0 + sessions.SESSION_IDLE - timedelta(minutes=1)) is not None
    assert sessions.session_user(db, idle, now=T0 + sessions.SESSION_IDLE * 2 - timedelta(minutes=2)) is not None
    assert sessions.session_user(db, idle, now=T0 + sessions.SESSION_IDLE * 3) is None  # unused for 2 days

    busy = sessions.open_session(db, alice.id, now=T0)
    moment = T0
    while moment + timedelta(days=1) < T0 + sessions.SESSION_MAX_AGE:  # used every day: still ends
        moment += timedelta(days=1)
        assert sessions.session_user(db, busy, now=moment) is not None
    assert sessions.session_user(db, busy, now=T0 + sessions.SESSION_MAX_AGE) is None


def test_unknown_and_empty_tokens(db):
    assert sessions.session_user(db, "") is None
    assert sessions.session_user(db, "not-a-token") is None
    sessions.close_session(db, "not-a-token")  # no error: sign-out of a stale cookie


def test_sign_out_revokes_only_that_session(engine):
    alice = engine.sign_up("alice", "correct horse 1")
    laptop, phone = engine.open_session(alice.id, "laptop"), engine.open_session(alice.id, "phone")
    engine.close_session(laptop)
    assert engine.session_actor(laptop) is None
    assert engine.session_actor(phone).name == "alice"


def test_password_change_revokes_every_session(engine):
    alice = engine.sign_up("alice", "correct horse 1")
    token = engine.open_session(alice.id)
    me = engine.session_actor(token)
    with pytest.raises(PermissionDenied, match="current password is wrong"):
        engine.change_password(me, "not it at all", "battery staple 2")
    assert engine.session_actor(token) is not None  # a failed change ends nothing
    engine.change_password(me, "correct horse 1", "battery staple 2")
    assert engine.session_actor(token) is None
    with pytest.raises(PermissionDenied):
        engine.sign_in("alice", "correct horse 1")
    assert engine.sign_in("alice", "battery staple 2").id == alice.id


def test_disable_revokes_and_refuses_sign_in_enable_restores(engine):
    admin = actor_of(engine.sign_up("root", "correct horse 1"))
    bob = engine.sign_up("bob", "battery staple 2")
    token = engine.open_session(bob.id)
    with pytest.raises(PermissionDenied):
        engine.set_user_disabled(actor_of(bob), "root", True)
    engine.set_user_disabled(admin, "bob", True)
    assert engine.session_actor(token) is None
    with pytest.raises(PermissionDenied, match="disabled"):
        engine.sign_in("bob", "battery staple 2")
    assert engine.user(bob.id).disabled
    engine.set_user_disabled(admin, "bob", False)
    assert engine.session_actor(token) is None  # enabling does not bring old sessions back
    assert engine.sign_in("bob", "battery staple 2").id == bob.id


def test_admin_cannot_disable_self_or_last_admin(engine):
    root = actor_of(engine.sign_up("root", "correct horse 1"))
    with pytest.raises(InvalidInput, match="your own account"):
        engine.set_user_disabled(root, "root", True)


def test_reset_password_by_admin_ends_sessions(engine):
    admin = actor_of(engine.sign_up("root", "correct horse 1"))
    bob = engine.sign_up("bob", "battery staple 2")
    token = engine.open_session(bob.id)
    with pytest.raises(PermissionDenied):
        engine.reset_password(actor_of(bob), "root", "taken over 123")
    engine.reset_password(admin, "BOB", "fresh start 3")  # names match case-insensitively
    assert engine.session_actor(token) is None
    assert engine.sign_in("bob", "fresh start 3").id == bob.id


def test_close_user_sessions_self_or_admin(engine):
    admin = actor_of(engine.sign_up("root", "correct horse 1"))
    bob = engine.sign_up("bob", "battery staple 2")
    tokens = [engine.open_session(bob.id) for _ in range(2)]
    with pytest.raises(PermissionDenied):
        engine.close_user_sessions(actor_of(bob), "root")
    assert engine.close_user_sessions(admin, "bob") == 2
    assert all(engine.session_actor(t) is None for t in tokens)


def test_views_carry_no_password_hash(engine):
    admin = actor_of(engine.sign_up("root", "correct horse 1"))
    bob = engine.sign_up("bob", "battery staple 2")
    for view in [engine.user(bob.id), *engine.list_users(admin),
                 engine.sign_in("bob", "battery staple 2")]:
        assert not hasattr(view, "password_hash")
        assert "$2b$" not in repr(view)


def test_ended_sessions_are_tidied_at_the_next_sign_in(db):
    alice = users.sign_up(db, "alice", "correct horse 1")
    bob = users.sign_up(db, "bob", "battery staple 2")
    old = sessions.open_session(db, alice.id, now=T0)
    sessions.close_session(db, old, now=T0)
    stale = sessions.open_session(db, alice.id, now=T0)  # never used again
    bobs = sessions.open_session(db, bob.id, now=T0)
    sessions.open_session(db, alice.id, now=T0 + sessions.SESSION_IDLE + timedelta(hours=1))
    with db.engine.connect() as conn:
        left = {r[0] for r in conn.execute(text("select token_hash from usersession"))}
    assert sessions.token_hash(old) not in left and sessions.token_hash(stale) not in left
    assert sessions.token_hash(bobs) in left and len(left) == 2  # bob's: not alice's to tidy
