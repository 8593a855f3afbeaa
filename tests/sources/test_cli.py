"""``python -m core sources add-folder`` and ``add-webdav`` as an operator runs them (real processes)."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import as_json, run_cli
from tests.sources.webdav_server import PASSWORD, USER, webdav_server


@pytest.mark.slow
def test_cli_adds_a_folder_and_refuses_one_outside_the_roots(tmp_path):
    data, share = tmp_path / "data", tmp_path / "share"
    (share / "team").mkdir(parents=True)
    (share / "team" / "plan.md").write_text("# Plan\n\nShip the heron release in May.", encoding="utf-8")
    off = run_cli(data, "sources", "add-folder", "--kb", "team", str(share / "team"), check=False)
    assert off.returncode != 0 and "folder sources are off" in off.stderr
    env = {"RAGDESK_SOURCES__KINDS__FOLDER__ALLOWED_ROOTS": json.dumps([str(share)])}
    run_cli(data, "kb", "create", "team", env_extra=env)
    added = as_json(run_cli(data, "--json", "sources", "add-folder", "--kb", "team", str(share / "team"), env_extra=env))
    assert added["status"] == "done" and added["added"] == 1
    outside = run_cli(data, "sources", "add-folder", "--kb", "team", str(tmp_path), check=False, env_extra=env)
    assert outside.returncode != 0 and "not under an allowed root" in outside.stderr
    [source] = as_json(run_cli(data, "--json", "sources", "list", env_extra=env))
    assert source["kind"] == "folder" and source["title"] == f"Folder: {share / 'team'}"
    (share / "team" / "plan.md").write_text("# Plan\n\nShip the egret release in June.", encoding="utf-8")
    synced = as_json(run_cli(data, "--json", "sources", "sync", source["id"], env_extra=env))
    assert synced["updated"] == 1
    assert "egret" in str(as_json(run_cli(data, "--json", "search", "release", "--kb", "team", env_extra=env)))


@pytest.mark.slow
def test_cli_adds_a_webdav_folder_with_the_password_from_a_file(tmp_path):
    data, root = tmp_path / "data", tmp_path / "dav"
    root.mkdir()
    (root / "menu.md").write_text("Thursday is dumpling day.", encoding="utf-8")
    env = {"RAGDESK_PARSING__URL_ALLOW_HOSTS": '["127.0.0.1"]'}
    secret = tmp_path / "pw.txt"
    secret.write_text(PASSWORD + "\n")
    run_cli(data, "kb", "create", "team", env_extra=env)
    with webdav_server(root) as dav:
        added = run_cli(data, "--json", "sources", "add-webdav", "--kb", "team", "--username", USER,
                        "--password-file", str(secret), dav.folder, env_extra=env)
        listed = run_cli(data, "--json", "sources", "list", env_extra=env)
        secret.write_text("wrong-password\n")
        wrong = run_cli(data, "sources", "add-webdav", "--kb", "team", "--username", USER,
                        "--password-file", str(secret), dav.folder, check=False, env_extra=env)
    assert as_json(added)["added"] == 1 and as_json(listed)[0]["kind"] == "webdav"
    assert wrong.returncode != 0 and "refused the user name or password" in wrong.stdout
    for out in (added, listed, wrong):
        assert PASSWORD not in out.stdout + out.stderr and "wrong-password" not in out.stdout + out.stderr


@pytest.mark.slow
def test_cli_adds_a_dingtalk_knowledge_base_with_the_secret_from_stdin_or_a_file(tmp_path):
    import os
    import subprocess
    import sys

    from tests.cli.test_cli import REPO
    from tests.sources.dingtalk_server import APP_KEY, APP_SECRET, OPERATOR, WORKSPACE, dingtalk_server

    data = tmp_path / "data"
    secret = tmp_path / "secret.txt"
    secret.write_text(APP_SECRET + "\n")
    with dingtalk_server() as ding:
        ding.add("d1", "Menu", text="Thursday is dumpling day.")
        env = {"RAGDESK_PARSING__URL_ALLOW_HOSTS": '["127.0.0.1"]', "RAGDESK_SOURCES__KINDS__DINGTALK__BASE_URL": ding.base}
        run_cli(data, "kb", "create", "team", env_extra=env)
        listed = run_cli(data, "--json", "sources", "dingtalk-workspaces", "--app-key", APP_KEY, "--operator", OPERATOR,
                         "--secret-file", str(secret), env_extra=env)
        full_env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
        full_env.update({"RAGDESK_DATA_DIR": str(data), "RAGDESK_EMBEDDING__MODEL": "hash-64", **env})
        added = subprocess.run([sys.executable, "-m", "core", "--json", "sources", "add-dingtalk", "--kb", "team",
                                "--app-key", APP_KEY, "--operator", OPERATOR, "--workspace", WORKSPACE],
                               input=APP_SECRET + "\n", cwd=REPO, env=full_env, capture_output=True, text=True, timeout=300)
        secret.write_text("wrong-secret\n")
        wrong = run_cli(data, "sources", "add-dingtalk", "--kb", "team", "--app-key", APP_KEY, "--operator", OPERATOR,
                        "--workspace", WORKSPACE, "--secret-file", str(secret), check=False, env_extra=env)
        as_argument = run_cli(data, "sources", "add-dingtalk", "--kb", "team", "--app-key", APP_KEY, "--operator",
                              OPERATOR, "--workspace", WORKSPACE, "--app-secret", APP_SECRET, check=False, env_extra=env)
        sources = run_cli(data, "--json", "sources", "list", env_extra=env)
    assert as_json(listed) == [{"id": WORKSPACE, "name": "Team handbook",
                                "url": f"https://alidocs.dingtalk.com/i/spaces/{WORKSPACE}/overview"}]
    assert added.returncode == 0, added.stderr
    assert as_json(added)["added"] == 1 and as_json(sources)[0]["kind"] == "dingtalk"
    assert wrong.returncode != 0 and "AppSecret" in wrong.stdout + wrong.stderr
    assert as_argument.returncode != 0 and "never taken on the command line" in as_argument.stderr
    for out in (listed, added, wrong, as_argument, sources):
        assert APP_SECRET not in out.stdout + out.stderr and "wrong-secret" not in out.stdout + out.stderr


@pytest.mark.slow
def test_the_webdav_password_is_typed_once_at_a_terminal_and_never_shown(tmp_path, monkeypatch):
    """At a terminal the password is asked for once (its server checks it right away), without echo."""
    from tests.cli.test_cli_tokens import _typed_at_a_terminal

    data, root = tmp_path / "data", tmp_path / "dav"
    root.mkdir()
    (root / "menu.md").write_text("Thursday is dumpling day.", encoding="utf-8")
    monkeypatch.setenv("RAGDESK_PARSING__URL_ALLOW_HOSTS", '["127.0.0.1"]')
    run_cli(data, "kb", "create", "team")
    with webdav_server(root) as dav:
        code, shown = _typed_at_a_terminal(data, "sources", "add-webdav", "--kb", "team", "--username", USER,
                                           dav.folder, answers=[PASSWORD])
    assert code == 0, shown
    assert "WebDAV password:" in shown and "again:" not in shown and "done: 1 added" in shown
    assert PASSWORD not in shown
