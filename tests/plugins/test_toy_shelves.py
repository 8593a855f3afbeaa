"""What a plugin adds around its thing (issue 34), proved by the toy package alone: its shelves
(tests/plugins/toy/shelves.py) bring a table on their own Alembic chain, operations that become a
CLI command (arguments from the signature, help from the docstring, JSON from the output model), a
hand-off command and HTTP routes, a job kind and an error class with its own exit code and HTTP
status — and no file under core/ names any of them. Every process here loads the toy as a
deployment does: ``RAGDESK_PLUGINS=tests.plugins.toy``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, inspect, text

from core.db.migrate import head as core_head
from core.errors import error_class, is_core_class
from tests.api.test_api_process import _admin_token, _start_api, _stopped_within
from tests.jobs.conftest import cli_env

REPO = Path(__file__).resolve().parents[2]
TOY_NAMES = ("toy_shelf", "toy-shelves", "toy-bookmark", "toy_bookmark", "ToyShelf", "toy_tidy", "tests.plugins")


def _env(data_dir: Path, **extra: str) -> dict:
    return cli_env(data_dir, RAGDESK_PLUGINS="tests.plugins.toy", **extra)


def _cli(env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "core", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def test_core_names_none_of_what_the_toy_adds():
    for path in (REPO / "core").rglob("*"):
        if path.suffix in (".py", ".mako", ".json", ".toml", ".po"):
            body = path.read_text(encoding="utf-8")
            assert not [n for n in TOY_NAMES if n in body], path


def test_the_toy_commands_come_from_the_signature_the_docstring_and_the_output_model(data_dir):
    env = _env(data_dir)
    helped = _cli(env, "toy-shelves", "--help").stdout
    assert "The toy shelves that hold bookmarks, each with its notes" in helped  # the docstring
    assert re.search(r"--shelf SHELF\s+only this shelf", helped)  # the parameter, its Field description
    assert "toy-bookmark" in _cli(env, "--help").stdout

    made = json.loads(_cli(env, "toy-bookmark", "blue", "--note", "kites", "--json").stdout)
    assert made == {"shelf": "blue", "bookmarks": 1, "notes": ["kites"]}
    _cli(env, "toy-bookmark", "red")
    assert json.loads(_cli(env, "--json", "toy-shelves").stdout) == [
        {"shelf": "blue", "bookmarks": 1, "notes": ["kites"]}, {"shelf": "red", "bookmarks": 1, "notes": [""]}]
    assert json.loads(_cli(env, "toy-shelves", "--shelf", "red", "--json").stdout)[0]["shelf"] == "red"
    assert _cli(env, "toy-shelves").stdout.splitlines() == ["blue  1  ['kites']", "red  1  ['']"]
    # a wrong argument is argparse's refusal (exit 2), before any engine opens
    assert _cli(env, "toy-bookmark", check=False).returncode == 2

    # the job kind: toy-tidy queues a toy_tidy job; a worker of the engine runs the plugin's handler
    assert json.loads(_cli(env, "toy-tidy", "blue", "--json").stdout) == 1
    assert [r["shelf"] for r in json.loads(_cli(env, "toy-shelves", "--json").stdout)] == ["red"]


def test_the_toy_error_keeps_its_exit_code_and_stays_outside_the_pin(data_dir):
    env = _env(data_dir)
    for _ in range(3):
        _cli(env, "toy-bookmark", "green")
    full = _cli(env, "--json", "toy-bookmark", "green", check=False)
    assert full.returncode == 40, full.stderr
    assert json.loads(full.stderr) == {"error": "toy shelf 'green' already holds 3 bookmarks", "kind": "ToyShelfFull"}
    cls = error_class("ToyShelfFull", "tests.plugins.toy.shelves")  # registered at import, as core's are
    assert (cls.exit_code, cls.http_status, cls.code) == (40, 409, "toy_shelf_full") and not is_core_class(cls)


def test_without_the_plugin_there_is_no_toy_command(data_dir):
    env = cli_env(data_dir)
    env.pop("RAGDESK_PLUGINS", None)
    gone = _cli(env, "toy-shelves", check=False)
    assert gone.returncode == 2 and "invalid choice: 'toy-shelves'" in gone.stderr


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_the_toy_table_is_made_by_the_normal_migration_step(database, data_dir, request):
    url = request.getfixturevalue("postgres_url") if database == "postgres" else ""
    env = _env(data_dir, **({"DATABASE_URL": url} if url else {}))
    # the start-up path on a new data folder and database: the engine opens, migrates, the toy uses its table
    assert json.loads(_cli(env, "toy-bookmark", f"on-{database}", "--json").stdout)["bookmarks"] == 1
    url = url or f"sqlite:///{data_dir / 'ragdesk.db'}"
    raw = create_engine(url)
    try:
        with raw.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            assert {"toy_shelf_bookmark", "alembic_version_toy"} <= tables
            assert conn.execute(text("SELECT version_num FROM alembic_version_toy")).scalar_one() == "toy_0001"
            # core's own chain is untouched by the plugin's: still at core's head, one row
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [core_head()]
            assert {c["name"] for c in inspect(conn).get_columns("toy_shelf_bookmark")} == {"id", "shelf", "note", "created_at"}
    finally:
        raw.dispose()
    assert _cli(env, "db", "upgrade").returncode == 0  # the migration command: nothing left to do, no error
    assert json.loads(_cli(env, "toy-shelves", "--json").stdout)[0]["shelf"] == f"on-{database}"


def test_the_toy_operations_over_http_and_through_the_hand_off(data_dir):
    env = _env(data_dir, RAGDESK_JOBS__DASHBOARD_WORKERS="1")
    token = _admin_token(env)
    subprocess.run([sys.executable, "-m", "core", "users", "create", "plain", "--role", "user"], cwd=REPO, env=env,
                   input="plain password 123\n", capture_output=True, text=True, check=True, timeout=120)
    plain = json.loads(_cli(env, "--json", "tokens", "create", "--user", "plain").stdout)["token"]
    proc, url = _start_api(env)
    shelves = f"{url}/api/v1/toy/shelves"
    try:
        assert httpx.get(shelves, trust_env=False).status_code == 401
        assert httpx.get(shelves, headers={"Authorization": "Bearer wrong"}, trust_env=False).status_code == 401
        assert httpx.get(shelves, headers={"Authorization": f"Bearer {plain}"}, trust_env=False).status_code == 403
        admin = {"Authorization": f"Bearer {token}"}
        for n in range(1, 4):
            made = httpx.post(shelves, json={"shelf": "blue", "note": f"n{n}"}, headers=admin, trust_env=False)
            assert made.status_code == 201 and made.json()["bookmarks"] == n, made.text
        full = httpx.post(shelves, json={"shelf": "blue"}, headers=admin, trust_env=False)
        assert full.status_code == 409 and full.json()["error"]["code"] == "toy_shelf_full", full.text
        assert httpx.get(shelves, headers=admin, trust_env=False).json() == [
            {"shelf": "blue", "bookmarks": 3, "notes": ["n1", "n2", "n3"]}]
        assert "/api/v1/toy/shelves" in httpx.get(f"{url}/openapi.json", trust_env=False).json()["paths"]

        # the API process holds the embedded store: the CLI hands the toy command to it
        listed = _cli(env, "toy-shelves", "--json")
        assert "hand-off" in listed.stderr and json.loads(listed.stdout)[0]["notes"] == ["n1", "n2", "n3"]
        refused = _cli(env, "toy-bookmark", "blue", check=False)
        assert refused.returncode == 40 and "already holds 3 bookmarks" in refused.stderr  # its class crossed
        tidied = _cli(env, "toy-tidy", "blue", "--json")  # the job kind, run by the API process's worker
        assert "hand-off" in tidied.stderr and json.loads(tidied.stdout) == 3
    finally:
        _stopped_within(proc, 30)


def test_the_toy_metadata_and_its_revisions_agree(either_database):
    """The toy (loaded in this process by the conftest) is migrated by every Database that opens:
    its chain, compared with its own metadata only, shows no drift."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from core.db.plugin_tables import include_table
    from tests.plugins.toy.shelves import metadata

    opts = {"compare_type": True, "include_name": lambda name, type_, _: type_ != "table" or include_table(name, metadata)}
    with either_database.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn, opts=opts), metadata) == []
        assert "toy_shelf_bookmark" in inspect(conn).get_table_names()
