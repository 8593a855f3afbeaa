"""Every ``gdrive`` / ``sources`` CLI command while another process holds the store: handed off
through the real socket to a real Engine (embedded Qdrant, SQLite) wired to the fake Drive, and
printing what the same command prints when the CLI opens the store itself."""

from __future__ import annotations

import json

import pytest

from core.cli.main import main
from core.config import RuntimeConfig
from core.engine import Engine
from core.handoff.channel import HandoffServer, RemoteEngine
from core.sources.models import SyncedSource
from core.sources.sync import SyncReport
from core.types import SYSTEM_ACTOR
from tests.websearch.fake_engines import fake_engines, html_page

READ_ONLY = [("gdrive", "status"), ("--json", "gdrive", "status"), ("gdrive", "ls"), ("--json", "gdrive", "ls"),
             ("--json", "gdrive", "ls", "--query", "Plan"), ("sources", "list"), ("--json", "sources", "list"),
             ("sources", "log"), ("--json", "sources", "log", "--limit", "2")]


def _open(data, drive, pages_allowed: bool = False) -> tuple[Engine, HandoffServer]:
    engine = Engine(RuntimeConfig.from_env(data))
    engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"},
                                        "gdrive": {**drive.settings(), "sync_interval_minutes": 60}, "parsing": {"url_allow_hosts": ["127.0.0.1"], "url_allow_private": pages_allowed}})
    return engine, HandoffServer(engine, data)


def _shut(engine: Engine, server: HandoffServer) -> None:
    server.close()
    engine.close()


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)
    data = tmp_path / "data"

    def run(*args: str, handed_off: bool = True) -> tuple[int, str, str]:
        code = main(["--data-dir", str(data), *args])
        out, err = capsys.readouterr()
        assert ("hand-off" in err) is handed_off, err
        return code, out, err

    run.data = data
    return run


@pytest.mark.slow  # three engine opens and a dozen CLI runs
def test_every_gdrive_and_sources_command_works_handed_off_as_in_process(cli, drive):
    folder = drive.folder("Team")
    drive.add("Plan", "application/vnd.google-apps.document", folder,
              exports={"text/markdown": "# 计划\n\nShip the heron release in May. 五月发布。".encode()})
    token = drive.issue_refresh_token("alice")
    with fake_engines() as web:
        page = web.page("/pages/egret", html_page("Egret", "Egrets nest by the lake."))
        engine, server = _open(cli.data, drive, pages_allowed=True)
        try:
            engine.create_kb(SYSTEM_ACTOR, "team")
            secret = cli.data.parent / "token.txt"
            secret.write_text(token)
            code, out, _ = cli("--json", "gdrive", "connect", "--refresh-token-file", str(secret))
            assert code == 0 and json.loads(out)["email"] == "alice@example.com" and token not in out
            code, out, _ = cli("--json", "gdrive", "import", "--kb", "team", "--watch", folder)
            imported = json.loads(out)
            assert code == 0 and (imported["status"], imported["added"]) == ("done", 1)
            [log] = engine.sync_logs(SYSTEM_ACTOR)  # what the engine recorded is what was printed
            assert (log.id, log.added, log.trigger) == (imported["log_id"], 1, "import")
            code, out, _ = cli("--json", "ask", "--kb", "team", "When is the heron release?")
            cited = json.loads(out)["citations"]  # a Drive file's citation links back to it, handed off too
            assert code == 0 and {(c["origin"], c["url"].split("/d/")[0]) for c in cited} == {("kb", "https://drive.example/file")}
            drive.add("Notes.txt", "text/plain", folder, content=b"egret notes")
            code, out, _ = cli("gdrive", "sync", "--kb", "team")
            assert code == 0 and out.startswith("done: 1 added, 0 updated, 0 removed, 0 failed") and "Notes.txt" in out
            code, out, _ = cli("--json", "sources", "add-web", "--kb", "team", page)
            added = json.loads(out)
            assert code == 0 and added["added"] == 1 and [r["name"] for r in added["results"]] == [page]
            code, out, _ = cli("--json", "sources", "sync", added["source_id"])
            assert code == 0 and json.loads(out)["source_id"] == added["source_id"]
            with engine._db.write() as s:  # make the web source due for the schedule
                s.get(SyncedSource, added["source_id"]).last_sync_at = None
            code, out, _ = cli("--json", "gdrive", "sync", "--due")
            assert code == 0 and [r["source_id"] for r in json.loads(out)] == [added["source_id"]]
            assert engine.sync_logs(SYSTEM_ACTOR, added["source_id"], limit=1)[0].trigger == "schedule"

            remote = RemoteEngine(cli.data)  # the client rebuilds the engine's own types
            assert all(isinstance(r, SyncedSource) for r in remote.sources(None))
            assert isinstance(remote.sync_source(None, added["source_id"]), SyncReport)
            assert [r.model_dump() for r in remote.sources(None, kind="web")] == \
                [r.model_dump() for r in engine.sources(SYSTEM_ACTOR, kind="web")]
            assert [r.model_dump() for r in remote.sync_logs(None, limit=3)] == \
                [r.model_dump() for r in engine.sync_logs(SYSTEM_ACTOR, limit=3)]
            handed_off = {args: cli(*args) for args in READ_ONLY}
        finally:
            _shut(engine, server)

    in_process = {args: cli(*args, handed_off=False) for args in READ_ONLY}
    for args in READ_ONLY:
        assert handed_off[args][:2] == in_process[args][:2], args
    assert "connected as alice@example.com" in in_process[("gdrive", "status")][1]
    assert len(json.loads(in_process[("--json", "sources", "log", "--limit", "2")][1])) == 2

    engine, server = _open(cli.data, drive)
    try:
        code, out, _ = cli("--json", "gdrive", "disconnect")
        assert code == 0 and json.loads(out) == {"disconnected": True, "revoked_at_google": True}
        code, _, err = cli("gdrive", "ls")
        assert code == 22 and "not connected" in err  # the typed error (and its exit code) crossed
        code, _, err = cli("sources", "sync", "no-such-source")
        assert code != 0 and "error:" in err
    finally:
        _shut(engine, server)

