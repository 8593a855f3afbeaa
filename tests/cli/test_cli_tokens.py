"""``python -m core tokens`` and ``users create`` (derived from the account service's operations,
``Cli(store=False)``): real processes on a real data folder, the JSON shapes, the password read from
standard input, and both commands beside a process that holds the embedded store (they need the
database only: no hand-off)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from contextlib import contextmanager

import pytest

from core.accounts import api_tokens, users
from core.config import RuntimeConfig
from core.db.database import Database
from core.errors import NotAuthenticated
from tests.cli.test_cli import REPO, as_json, run_cli

PASSWORD = "correct horse 1"


def _run(data_dir, *args, stdin: str = "", check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update({"RAGDESK_DATA_DIR": str(data_dir), "RAGDESK_EMBEDDING__MODEL": "hash-64"})
    proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=REPO, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


@contextmanager
def _database(data_dir):
    """The data folder's database, read here as the API's door and the sign-in page read it."""
    db = Database(RuntimeConfig.from_env(data_dir).database_url)
    try:
        yield db
    finally:
        db.dispose()


def _actor_for(data_dir, token: str):
    with _database(data_dir) as db:
        return api_tokens.actor_for_token(db, token, client="test")


@pytest.fixture
def two_users(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    _run(data_dir, "users", "create", "root", stdin=PASSWORD + "\n")
    _run(data_dir, "users", "create", "bob", stdin=PASSWORD + "\n")
    return data_dir


def test_users_create_reads_the_password_from_stdin_and_the_first_is_admin(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    first = as_json(_run(data_dir, "users", "create", "root", "--json", stdin=PASSWORD + "\n"))
    second = as_json(_run(data_dir, "users", "create", "bob", "--json", stdin=PASSWORD + "\n"))
    third = as_json(_run(data_dir, "users", "create", "carol", "--role", "admin", "--json", stdin=PASSWORD + "\n"))
    assert [(r["name"], r["role"]) for r in (first, second, third)] == [("root", "admin"), ("bob", "user"), ("carol", "admin")]
    assert set(first) == {"id", "name", "role", "disabled", "email", "language", "created_at"}
    assert PASSWORD not in str(first)
    with _database(data_dir) as db:  # the password really is the one given
        assert users.authenticate(db, "bob", PASSWORD).name == "bob"
    listed = as_json(run_cli(data_dir, "users", "list", "--json"))
    assert {r["name"] for r in listed} == {"root", "bob", "carol"}


def test_users_create_refusals_are_clear(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    not_admin = _run(data_dir, "users", "create", "root", "--role", "user", stdin=PASSWORD + "\n", check=False)
    assert not_admin.returncode == 2 and "first account is the admin" in not_admin.stderr
    no_password = _run(data_dir, "users", "create", "root", check=False)
    assert no_password.returncode == 2 and "standard input" in no_password.stderr
    short = _run(data_dir, "users", "create", "root", stdin="short\n", check=False)
    assert short.returncode == 2 and "at least 8" in short.stderr
    _run(data_dir, "users", "create", "root", stdin=PASSWORD + "\n")
    taken = _run(data_dir, "users", "create", "ROOT", stdin=PASSWORD + "\n", check=False)
    assert taken.returncode == 4 and "taken" in taken.stderr and "Traceback" not in taken.stderr


def test_tokens_create_list_revoke_json_shapes(two_users):
    data_dir = two_users
    made = as_json(_run(data_dir, "tokens", "create", "--user", "bob", "--label", "wiki bot",
                        "--expires-days", "30", "--json"))
    assert set(made) == {"id", "token", "user", "label", "prefix", "created_at", "expires_at"}
    assert made["token"].startswith("rd_") and made["token"].startswith(made["prefix"])
    assert (made["user"], made["label"]) == ("bob", "wiki bot") and made["expires_at"]
    assert _actor_for(data_dir, made["token"]).name == "bob"

    listed = _run(data_dir, "tokens", "list", "--json")
    rows = as_json(listed)
    assert made["token"] not in listed.stdout and made["token"][len(made["prefix"]):] not in listed.stdout
    assert [set(r) for r in rows] == [{"id", "user", "label", "prefix", "created_at", "expires_at", "last_used_at"}]
    assert rows[0]["id"] == made["id"] and rows[0]["last_used_at"]  # the check above used it
    assert as_json(_run(data_dir, "tokens", "list", "--user", "root", "--json")) == []

    revoked = as_json(_run(data_dir, "tokens", "revoke", made["id"], "--json"))
    assert revoked == {"revoked": made["id"]}
    with pytest.raises(NotAuthenticated):
        _actor_for(data_dir, made["token"])
    assert as_json(_run(data_dir, "tokens", "list", "--json")) == []
    again = _run(data_dir, "tokens", "revoke", made["id"], check=False)
    assert again.returncode == 3 and "no API token" in again.stderr


def test_tokens_create_prints_the_token_once_on_its_first_line(two_users):
    shown = _run(two_users, "tokens", "create", "--user", "bob").stdout
    token = shown.splitlines()[0]
    assert token.startswith("rd_") and shown.count(token) == 1 and "only this once" in shown
    assert _actor_for(two_users, token).name == "bob"
    listed = _run(two_users, "tokens", "list").stdout
    assert token not in listed and token[:9] in listed


def test_tokens_refusals_are_clear(two_users):
    unknown = _run(two_users, "tokens", "create", "--user", "nobody", check=False)
    assert unknown.returncode == 3 and "user 'nobody' not found" in unknown.stderr
    bad = _run(two_users, "tokens", "create", "--user", "bob", "--expires-days", "0", check=False)
    assert bad.returncode == 2 and "expires" in bad.stderr and "rd_" not in bad.stdout


def test_tokens_and_users_create_run_beside_the_process_holding_the_store(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from core.engine import Engine
            e = Engine.open({str(data_dir)!r}, serve_handoff=True)
            print("ready", flush=True)
            for line in sys.stdin:
                if not line.strip():
                    break
                try:
                    print(e.actor_for_api_token(line.strip(), client="holder").name, flush=True)
                except Exception as exc:
                    print(type(exc).__name__, flush=True)
            e.close()
        """)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "RAGDESK_EMBEDDING__MODEL": "hash-64"},
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        created = _run(data_dir, "users", "create", "root", stdin=PASSWORD + "\n")
        assert "hand-off" not in created.stderr
        made = as_json(_run(data_dir, "tokens", "create", "--user", "root", "--json"))
        # the holder's engine sees the token at once, and its revocation at once
        holder.stdin.write(made["token"] + "\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "root"
        _run(data_dir, "tokens", "revoke", made["id"])
        holder.stdin.write(made["token"] + "\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "NotAuthenticated"
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)


def _typed_at_a_terminal(data_dir, *args: str, answers: list[str]) -> tuple[int, str]:
    """``python -m core *args`` on a real pseudo-terminal: each prompt answered in turn; what the
    terminal showed (the typed characters too, were echo on) and the exit code."""
    import os
    import pty
    import select
    import time

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update({"RAGDESK_DATA_DIR": str(data_dir), "RAGDESK_EMBEDDING__MODEL": "hash-64"})
    # a new session has no controlling terminal: getpass reads the pty on standard input, echo off
    proc = subprocess.Popen([sys.executable, "-m", "core", *args], cwd=REPO, env=env, stdin=slave, stdout=slave,
                            stderr=slave, start_new_session=True)
    os.close(slave)
    shown, deadline = b"", time.monotonic() + 120
    pending, answered_at = list(answers), 0
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the command ended and closed the terminal
                    break
                if not chunk:
                    break
                shown += chunk
                if pending and shown[answered_at:].rstrip().endswith(b":"):  # a new prompt: answer it once
                    os.write(master, pending.pop(0).encode() + b"\n")
                    answered_at = len(shown)
            elif proc.poll() is not None:
                break
        return proc.wait(30), shown.decode(errors="replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_users_create_at_a_terminal_asks_twice_and_never_echoes(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    code, shown = _typed_at_a_terminal(data_dir, "users", "create", "root", answers=[PASSWORD, PASSWORD])
    assert code == 0 and "new password:" in shown and "again:" in shown and "created admin account 'root'" in shown
    assert PASSWORD not in shown
    with _database(data_dir) as db:
        assert users.authenticate(db, "root", PASSWORD).name == "root"
    code, shown = _typed_at_a_terminal(data_dir, "users", "create", "bob", answers=[PASSWORD, "correct horse 2"])
    assert code == 2 and "the two new passwords typed differ" in shown and PASSWORD not in shown
    assert "correct horse 2" not in shown
