"""``python -m core gdrive ...`` as an operator runs it (real processes), against the fake Drive."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import as_json, run_cli
from tests.fakes.drive_server import DOC
from tests.gdrive.conftest import OPEN_FAKE_DRIVE_ENV


@pytest.mark.slow
def test_gdrive_cli_connect_ls_import_sync_disconnect(tmp_path, drive):
    data = tmp_path / "data"
    env = {f"RAGDESK_GDRIVE__{k.upper()}": str(v) for k, v in drive.settings().items()} | OPEN_FAKE_DRIVE_ENV
    folder = drive.folder("Team")
    drive.add("Plan", DOC, folder, exports={"text/markdown": b"# Plan\n\nShip the heron release in May."})
    token = drive.issue_refresh_token("alice")

    secret = tmp_path / "token.txt"
    secret.write_text(token + "\n")
    connected = as_json(run_cli(data, "--json", "gdrive", "connect", "--refresh-token-file", str(secret), env_extra=env))
    assert connected["connected"] and connected["email"] == "alice@example.com"
    listed = as_json(run_cli(data, "--json", "gdrive", "ls", env_extra=env))
    assert [r["name"] for r in listed] == ["Team"]
    run_cli(data, "kb", "create", "team", env_extra=env)
    imported = run_cli(data, "--json", "gdrive", "import", "--kb", "team", "--watch", folder, env_extra=env)
    assert as_json(imported)["added"] == 1 and token not in imported.stdout + imported.stderr
    drive.add("Notes.txt", "text/plain", folder, content=b"egret notes")
    synced = as_json(run_cli(data, "--json", "gdrive", "sync", env_extra=env))
    assert [(r["added"], r["status"]) for r in synced] == [(1, "done")]
    status = run_cli(data, "gdrive", "status", env_extra=env)
    assert "connected as alice@example.com" in status.stdout and "watched" in status.stdout
    assert token not in status.stdout
    found = as_json(run_cli(data, "--json", "search", "heron release", "--kb", "team", env_extra=env))
    assert "heron" in str(found)
    [source] = as_json(run_cli(data, "--json", "sources", "list", env_extra=env))
    assert source["kind"] == "gdrive" and source["watch"]
    log = as_json(run_cli(data, "--json", "sources", "log", source["id"], env_extra=env))
    assert [(r["trigger"], r["added"]) for r in log] == [("manual", 1), ("import", 1)]
    gone = as_json(run_cli(data, "--json", "gdrive", "disconnect", env_extra=env))
    assert gone == {"disconnected": True, "revoked_at_google": True}
    after = run_cli(data, "gdrive", "ls", check=False, env_extra=env)
    assert after.returncode != 0 and "not connected" in after.stderr


@pytest.mark.slow
def test_gdrive_cli_while_the_dashboard_holds_the_store_is_handed_off(tmp_path, drive):
    import os
    import subprocess
    import sys
    import textwrap

    from tests.cli.test_cli import REPO

    data = tmp_path / "data"
    env = {f"RAGDESK_GDRIVE__{k.upper()}": str(v) for k, v in drive.settings().items()} | OPEN_FAKE_DRIVE_ENV
    folder = drive.folder("Team")
    drive.add("a.txt", "text/plain", folder, content=b"alpha plover")
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from core.engine import Engine
            e = Engine.open({str(data)!r}, serve_handoff=True)
            print("ready", flush=True)
            sys.stdin.readline()
            e.close()
        """)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "RAGDESK_EMBEDDING__MODEL": "hash-64", **env})
    try:
        assert holder.stdout.readline().strip() == "ready"
        secret = tmp_path / "token.txt"
        secret.write_text(drive.issue_refresh_token())
        connected = run_cli(data, "--json", "gdrive", "connect", "--refresh-token-file", str(secret), env_extra=env)
        assert "hand-off" in connected.stderr and as_json(connected)["connected"]
        run_cli(data, "kb", "create", "team", env_extra=env)
        assert as_json(run_cli(data, "--json", "gdrive", "import", "--kb", "team", "--watch", folder, env_extra=env))["added"] == 1
        drive.add("b.txt", "text/plain", folder, content=b"bravo")
        synced = as_json(run_cli(data, "--json", "gdrive", "sync", env_extra=env))
        assert [r["added"] for r in synced] == [1]
        # the status's sources cross the hand-off as JSON and print as they do here (str() times)
        [source] = as_json(run_cli(data, "--json", "gdrive", "status", env_extra=env))["sources"]
        assert source["watch"] and source["last_sync_at"][10] == " " and "config" not in source
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)


def test_a_refresh_token_is_read_from_stdin_never_taken_from_the_command_line(tmp_path, drive):
    """On the command line the token was readable by every local user in ``ps``."""
    import os
    import subprocess
    import sys

    from tests.cli.test_cli import REPO

    data = tmp_path / "data"
    env = {f"RAGDESK_GDRIVE__{k.upper()}": str(v) for k, v in drive.settings().items()} | OPEN_FAKE_DRIVE_ENV
    token = drive.issue_refresh_token("alice")
    refused = run_cli(data, "gdrive", "connect", "--refresh-token", token, check=False, env_extra=env)
    assert refused.returncode != 0 and "standard input" in refused.stderr and token not in refused.stderr
    assert "connected" not in run_cli(data, "gdrive", "status", env_extra=env).stdout.replace("not connected", "")
    piped = subprocess.run([sys.executable, "-m", "core", "--json", "gdrive", "connect"], input=token + "\n",
                           cwd=REPO, capture_output=True, text=True, timeout=300,
                           env={**{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")},
                                "RAGDESK_DATA_DIR": str(data), "RAGDESK_EMBEDDING__MODEL": "hash-64", **env})
    assert piped.returncode == 0, piped.stderr
    assert as_json(piped)["email"] == "alice@example.com" and token not in piped.stdout + piped.stderr
