"""Threat: someone guesses passwords faster than the lock-out allows — forty sign-ins at once,
all in flight before the first failure is counted, or wrong "current passwords" on the change
password form, which nothing counted — or signs up as a look-alike of an existing user
("\\u0430lice" with a Cyrillic а beside alice) to be picked by name.

The sign-in guard runs against a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import pytest

from core.accounts import users
from core.db.database import Database, sqlite_url
from core.errors import AlreadyExists, InvalidInput, PermissionDenied
from core.names import user_name_key
from core.accounts.signin_guard import SignInLocked, SignInPolicy
from core.types import Actor

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
FAST = SignInPolicy(failure_delay_seconds=0)  # the race is about counting, not about the delay
PARALLEL = 39


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path):
    url = sqlite_url(tmp_path / "accounts.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    database = Database(url)
    users.sign_up(database, "alice", "correct horse 1")
    yield database
    database.dispose()


def _all_at_once(attempt, count: int) -> list[str]:
    """Run ``attempt(i)`` in ``count`` threads released together; what each one was told."""
    start = threading.Barrier(count)

    def run(i: int) -> str:
        start.wait()
        try:
            attempt(i)
            return "signed in"
        except SignInLocked:
            return "locked"
        except PermissionDenied:
            return "password checked"

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def test_parallel_guesses_at_one_name_get_no_more_password_checks_than_the_limit(db):
    told = _all_at_once(lambda i: users.authenticate(db, "alice", f"guess {i:02d}xx", policy=FAST, now=T0), PARALLEL)
    assert told.count("password checked") == FAST.max_failures_per_name
    assert told.count("locked") == PARALLEL - FAST.max_failures_per_name
    with pytest.raises(SignInLocked):  # and the right password, next, is refused too
        users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0)


def test_parallel_guesses_from_one_client_get_no_more_password_checks_than_its_limit(db):
    told = _all_at_once(lambda i: users.authenticate(db, f"user{i:02d}", "guess guess", client="10.0.0.9",
                                                     policy=FAST, now=T0), PARALLEL)
    assert told.count("password checked") == FAST.max_failures_per_client
    with pytest.raises(SignInLocked):
        users.authenticate(db, "alice", "correct horse 1", client="10.0.0.9", policy=FAST, now=T0)
    assert users.authenticate(db, "alice", "correct horse 1", client="10.0.0.10", policy=FAST, now=T0).name == "alice"


def test_a_right_password_gives_its_reserved_attempt_back(db):
    for _ in range(FAST.max_failures_per_client - 1):
        users.authenticate(db, "alice", "correct horse 1", client="10.0.0.9", policy=FAST, now=T0)
    for _ in range(3):  # the signed-in attempts above did not fill the client's counter
        users.authenticate(db, "alice", "correct horse 1", client="10.0.0.9", policy=FAST, now=T0)


def test_wrong_current_passwords_are_throttled_like_sign_ins(db):
    alice = users.actor_of(users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0))
    told = []
    for i in range(12):
        try:
            users.change_password(db, alice, f"guess {i:02d}xx", "new password 1")
            told.append("changed")
        except SignInLocked:
            told.append("locked")
        except PermissionDenied:
            told.append("password checked")
    assert told == ["password checked"] * 5 + ["locked"] * 7
    with pytest.raises(SignInLocked):  # the right one is refused while locked, and nothing changed
        users.change_password(db, alice, "correct horse 1", "new password 1")
    with pytest.raises(SignInLocked):  # the same counter as sign-in: guessing here does not restart it there
        users.authenticate(db, "alice", "correct horse 1", policy=FAST)


def test_parallel_password_changes_get_no_more_checks_than_the_limit(db):
    alice = users.actor_of(users.authenticate(db, "alice", "correct horse 1", policy=FAST, now=T0))
    told = _all_at_once(lambda i: users.change_password(db, alice, f"guess {i:02d}xx", "new password 1"), 12)
    assert told.count("password checked") == 5 and told.count("locked") == 7


# ---------------------------------------------------------------- one name policy
@pytest.mark.parametrize("look_alike, alphabet", [("\u0430lice", "Cyrillic"), ("b\u03bfb", "Greek")])
def test_a_look_alike_of_a_user_name_cannot_sign_up(db, look_alike, alphabet):
    users.sign_up(db, "bob", "correct horse 2")
    with pytest.raises(InvalidInput, match=f"mixes Latin and {alphabet}"):
        users.sign_up(db, look_alike, "correct horse 3")
    assert sorted(u.name for u in users.list_users(db, Actor(user_id="x", role="admin", name="x"))) == ["alice", "bob"]


def test_an_all_cyrillic_twin_of_a_latin_name_is_the_same_name(db):
    users.sign_up(db, "pop", "correct horse 2")
    with pytest.raises(AlreadyExists):
        users.sign_up(db, "\u0440\u043e\u0440", "correct horse 3")  # рор, every letter Cyrillic


@pytest.mark.parametrize("name, problem", [("al\u202eice", "bidi"), ("al\u200bice", "zero-width"), ("a\x1bb", "control")])
def test_user_names_follow_the_names_policy(db, name, problem):
    with pytest.raises(InvalidInput, match=problem):
        users.sign_up(db, name, "correct horse 3")


def test_single_sign_on_names_follow_the_same_policy(db):
    made = users.sso_user(db, "a@example.com", "\u0430lice")  # an identity provider's display name
    assert made.name != "alice" and user_name_key(made.name) != user_name_key("alice")  # not a look-alike
    assert users.sso_user(db, "z@example.com", "Zoë").name == "Zoë"
