"""The CLI's account, sharing, chat and job commands, ``--json`` after the subcommand, and a
closed pipe: real processes on a real data folder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from core.ingest.service import Upload
from core.accounts.users import actor_of
from tests.cli.test_cli import REPO, as_json, run_cli
from tests.engine.conftest import POLICY_MD, make_engine

pytestmark = pytest.mark.slow  # about 30 CLI processes

PASSWORD = "correct horse 1"


@pytest.fixture
def populated(data_dir, monkeypatch):
    """alice (admin) with a knowledge base and a saved chat; bob and carol (users)."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    engine = make_engine(data_dir)
    try:
        alice = actor_of(engine.sign_up("alice", PASSWORD))
        bob = engine.sign_up("bob", PASSWORD)
        engine.sign_up("carol", PASSWORD)
        kb = engine.create_kb(alice, "差旅")
        engine.submit_ingest(alice, kb.id, [Upload("差旅.md", POLICY_MD.encode())]).result(timeout=120)
        answer = engine.ask(alice, "出差乘坐飞机要提前几天申请？", kbs=[kb.id])
        token = engine.open_session(bob.id)
    finally:
        engine.close()
    return {"chat_id": answer.chat_id, "bob_token": token, "data_dir": data_dir}


def _session_alive(data_dir, token: str) -> bool:
    engine = make_engine(data_dir)
    try:
        return engine.session_actor(token) is not None
    finally:
        engine.close()


def test_json_is_accepted_after_the_subcommand(data_dir):
    run_cli(data_dir, "kb", "create", "handbook")
    after = as_json(run_cli(data_dir, "kb", "list", "--json"))
    before = as_json(run_cli(data_dir, "--json", "kb", "list"))
    assert after == before and after[0]["name"] == "handbook"
    assert run_cli(data_dir, "kb", "list").stdout.startswith("handbook")  # not JSON without the flag


def test_a_closed_pipe_is_not_a_traceback(data_dir):
    for i in range(3):
        run_cli(data_dir, "kb", "create", f"kb-{i}")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update(RAGDESK_DATA_DIR=str(data_dir), RAGDESK_EMBEDDING__MODEL="hash-64")
    proc = subprocess.run(f"{sys.executable} -m core kb list --json | head -c 0", shell=True, cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_users_list_role_disable_enable_reset(populated):
    data_dir = populated["data_dir"]
    users = {u["name"]: u for u in as_json(run_cli(data_dir, "users", "list", "--json"))}
    assert set(users) == {"alice", "bob", "carol"} and users["alice"]["role"] == "admin"
    assert not any("hash" in key for u in users.values() for key in u)
    assert run_cli(data_dir, "users", "set-role", "carol", "admin").stdout.strip() == "carol is now admin"
    assert _session_alive(data_dir, populated["bob_token"])
    assert as_json(run_cli(data_dir, "users", "disable", "bob", "--json"))["disabled"] is True
    assert not _session_alive(data_dir, populated["bob_token"])  # disabling ended bob's session
    assert "disabled" in run_cli(data_dir, "users", "list").stdout.splitlines()[1]
    run_cli(data_dir, "users", "enable", "BOB")  # names match case-insensitively
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update(RAGDESK_DATA_DIR=str(data_dir), RAGDESK_EMBEDDING__MODEL="hash-64")
    reset = subprocess.run([sys.executable, "-m", "core", "users", "reset-password", "bob"], input="brand new pw 9\n",
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert reset.returncode == 0, reset.stderr
    assert "brand new pw 9" not in reset.stdout + reset.stderr
    engine = make_engine(data_dir)
    try:
        assert engine.sign_in("bob", "brand new pw 9").name == "bob"
    finally:
        engine.close()
    short = subprocess.run([sys.executable, "-m", "core", "users", "reset-password", "bob"], input="short\n",
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert short.returncode == 2 and "at least 8 characters" in short.stderr
    missing = run_cli(data_dir, "users", "disable", "nobody", check=False)
    assert missing.returncode == 3 and missing.stderr.strip() == "error: user 'nobody' not found"


def test_kb_share_unshare_shared(populated):
    data_dir = populated["data_dir"]
    shared = as_json(run_cli(data_dir, "kb", "share", "差旅", "bob", "--json"))
    assert shared == {"kb": "差旅", "visibility": "shared", "shared_with": ["bob"]}
    assert as_json(run_cli(data_dir, "kb", "share", "差旅", "carol", "--json"))["shared_with"] == ["bob", "carol"]
    assert as_json(run_cli(data_dir, "kb", "unshare", "差旅", "bob", "--json"))["shared_with"] == ["carol"]
    assert run_cli(data_dir, "kb", "shared", "差旅").stdout.strip() == "差旅 (shared): carol"
    wrong = run_cli(data_dir, "kb", "unshare", "差旅", "bob", check=False)
    assert wrong.returncode == 2 and "not shared with: bob" in wrong.stderr
    nobody = run_cli(data_dir, "kb", "share", "差旅", "nobody", check=False)
    assert nobody.returncode == 3


def test_chats_list_show_export(populated, tmp_path):
    data_dir, chat_id = populated["data_dir"], populated["chat_id"]
    chats = as_json(run_cli(data_dir, "chats", "list", "--json"))
    assert [(c["id"], c["owner"]) for c in chats] == [(chat_id, "alice")]
    assert as_json(run_cli(data_dir, "chats", "list", "--user", "bob", "--json")) == []
    shown = as_json(run_cli(data_dir, "chats", "show", chat_id, "--json"))
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]
    assert "提前三天" in shown["messages"][1]["content"]
    out = tmp_path / "chat.md"
    run_cli(data_dir, "chats", "export", chat_id, "-o", str(out))
    md = out.read_text(encoding="utf-8")
    assert md.startswith("# ") and "> 出差乘坐飞机要提前几天申请？" in md and "提前三天" in md
    assert "差旅.md" in md.split("Sources:")[1]
    assert run_cli(data_dir, "chats", "export", chat_id).stdout == md
    missing = run_cli(data_dir, "chats", "show", "no-such-chat", check=False)
    assert missing.returncode == 3 and "chat 'no-such-chat' not found" in missing.stderr


def test_jobs_list_and_cancel(populated):
    data_dir = populated["data_dir"]
    jobs = as_json(run_cli(data_dir, "jobs", "list", "--json"))
    assert [(j["kind"], j["state"]) for j in jobs] == [("ingest", "done")]
    assert as_json(run_cli(data_dir, "jobs", "list", "--active", "--json")) == []
    done = as_json(run_cli(data_dir, "jobs", "cancel", jobs[0]["id"], "--json"))
    assert done["state"] == "done"  # a finished job stays finished
    missing = run_cli(data_dir, "jobs", "cancel", "nope", check=False)
    assert missing.returncode == 3 and "job 'nope' not found" in missing.stderr


def test_commands_outside_the_hand_off_say_so_while_the_dashboard_runs(data_dir):
    import textwrap

    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from core.engine import Engine
            e = Engine.open({str(data_dir)!r}, serve_handoff=True)
            print("ready", flush=True)
            sys.stdin.readline()
            e.close()
        """)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "RAGDESK_EMBEDDING__MODEL": "hash-64"},
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        # refused at once, with its own remedy, and nothing says it runs in the dashboard
        index = run_cli(data_dir, "kb", "index", "anything", check=False)
        assert index.returncode == 9 and "'kb index' is not handed off" in index.stderr
        assert "stop the dashboard" in index.stderr and "hand-off)" not in index.stderr
        assert "Traceback" not in index.stderr
        # chats are read there (derived from operations that declare the hand-off)
        chats = run_cli(data_dir, "chats", "list")
        assert chats.stdout.strip() == "no chats" and "hand-off" in chats.stderr
        # account commands need the database only: they run beside it (Cli(store=False))
        assert run_cli(data_dir, "users", "list").returncode == 0
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
