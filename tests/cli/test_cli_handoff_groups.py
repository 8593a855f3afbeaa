"""The derived kb, files, settings, chats and sources commands while another process holds the embedded
store: each runs there (hand-off) and prints what it prints when run here; typed errors come back with
their exit codes; ``kb index``, never handed off, is refused with its own advice, and so are the
``sources`` commands that take a secret."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR
from tests.cli.test_cli import REPO, as_json, run_cli


def _holder(data_dir, monkeypatch):
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.types import SYSTEM_ACTOR

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    holder = Engine(RuntimeConfig.from_env(data_dir), serve_handoff=True)
    holder.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"}})
    return holder


def test_kb_commands_cross_the_hand_off(data_dir, monkeypatch):
    with _holder(data_dir, monkeypatch):
        created = run_cli(data_dir, "--json", "kb", "create", "人事", "--visibility", "public", "--description", "HR")
        assert "hand-off" in created.stderr
        kb = as_json(created)
        assert kb == {"id": kb["id"], "name": "人事", "visibility": "public", "embedder": "", "dimension": 0,
                      "collection": "", "description": "HR"}
        run_cli(data_dir, "kb", "create", "archive")
        listed = as_json(run_cli(data_dir, "--json", "kb", "list"))
        assert [(r["name"], r["files"], r["by_status"], r["vectors"]) for r in listed] == [
            ("archive", 0, {}, 0), ("人事", 0, {}, 0)]
        assert run_cli(data_dir, "kb", "list").stdout.splitlines()[0].split() == [
            "archive", "0", "files", "0", "chunks", "0", "vectors", "-"]
        renamed = as_json(run_cli(data_dir, "--json", "kb", "rename", "人事", "人力资源"))
        assert (renamed["id"], renamed["name"]) == (kb["id"], "人力资源")
        assert as_json(run_cli(data_dir, "--json", "kb", "delete", "archive")) == {"deleted": "archive"}
        gone = run_cli(data_dir, "kb", "delete", "archive", check=False)
        assert gone.returncode == 3 and "knowledge base 'archive' not found" in gone.stderr
        taken = run_cli(data_dir, "--json", "kb", "create", "人力资源", check=False)
        assert taken.returncode == 4 and '"kind": "AlreadyExists"' in taken.stderr
        refused = run_cli(data_dir, "kb", "index", "人力资源", check=False)
        assert refused.returncode != 0 and "'kb index' is not handed off" in refused.stderr
        assert "stop the dashboard, run this, start it again" in refused.stderr
    listed_here = as_json(run_cli(data_dir, "--json", "kb", "list"))  # the holder is gone: run here, same rows
    assert [r["name"] for r in listed_here] == ["人力资源"] and listed_here[0]["id"] == kb["id"]


def test_files_commands_cross_the_hand_off(data_dir, monkeypatch, tmp_path):
    doc = tmp_path / "parking.md"
    doc.write_text("# Parking\n\nVisitors park on level two.\n", encoding="utf-8")
    with _holder(data_dir, monkeypatch):
        run_cli(data_dir, "kb", "create", "office")
        assert as_json(run_cli(data_dir, "--json", "ingest", "--kb", "office", str(doc)))[0]["status"] == "indexed"
        listed = run_cli(data_dir, "--json", "files", "list", "--kb", "office", "--status", "indexed")
        assert "hand-off" in listed.stderr
        [row] = as_json(listed)
        assert row == {"id": row["id"], "name": "parking.md", "status": "indexed", "chunks": 1, "size": doc.stat().st_size,
                       "kb_id": row["kb_id"], "error": ""}
        missing = run_cli(data_dir, "files", "list", "--kb", "nope", check=False)
        assert missing.returncode == 3 and "knowledge base 'nope' not found" in missing.stderr
        mixed = run_cli(data_dir, "--json", "files", "delete", row["id"], "0000", check=False)
        assert mixed.returncode == 1  # one was not deleted
        assert [(r["status"], r["name"]) for r in as_json(mixed)] == [("deleted", "parking.md"), ("failed", "0000")]
        assert run_cli(data_dir, "files", "list").stdout.strip() == "no files"


def test_settings_commands_cross_the_hand_off(data_dir, monkeypatch):
    with _holder(data_dir, monkeypatch) as holder:
        got = run_cli(data_dir, "settings", "get", "strict.rag_strict_mode")
        assert "hand-off" in got.stderr and got.stdout.strip() == "False"
        saved = run_cli(data_dir, "--json", "settings", "set", "llm.api_key", "sk-handed-9911")
        assert as_json(saved) == {"saved": "llm.api_key", "value": "********"} and "sk-handed" not in saved.stdout
        assert holder.runtime.settings().llm.api_key.get_secret_value() == "sk-handed-9911"  # saved there
        run_cli(data_dir, "settings", "set", "strict.rag_strict_mode", "true")
        assert as_json(run_cli(data_dir, "--json", "settings", "get", "strict"))["rag_strict_mode"] is True
        assert as_json(run_cli(data_dir, "--json", "settings", "get", "llm"))["api_key"] == "********"
        unknown = run_cli(data_dir, "settings", "get", "nope.x", check=False)
        assert unknown.returncode == 2 and "no setting named 'nope.x'" in unknown.stderr
        refused = run_cli(data_dir, "--json", "settings", "set", "chunking.chunk_overlap", "900", check=False)
        assert refused.returncode == 2 and '"kind": "InvalidSettings"' in refused.stderr


def test_chats_commands_cross_the_hand_off(data_dir, monkeypatch, tmp_path):
    from core.accounts.users import actor_of
    from core.chats.store import add_message

    with _holder(data_dir, monkeypatch) as holder:
        alice = actor_of(holder.sign_up("alice", "correct horse battery"))
        chat = holder.create_chat(alice, "Parking")
        add_message(holder.runtime.db, chat.id, "user", "Where do I park?")
        add_message(holder.runtime.db, chat.id, "assistant", "Level two [1].", mode="strict",
                    citations=[{"n": 1, "source_name": "handbook.md"}])
        listed = run_cli(data_dir, "--json", "chats", "list")
        assert "hand-off" in listed.stderr
        [row] = as_json(listed)
        assert row == {"id": chat.id, "title": "Parking", "owner": "alice", "updated_at": row["updated_at"]}
        assert " " in row["updated_at"] and "T" not in row["updated_at"]  # str(datetime), as before
        assert run_cli(data_dir, "chats", "list", "--search", "level").stdout.split()[-2:] == ["alice", "Parking"]
        shown = as_json(run_cli(data_dir, "--json", "chats", "show", chat.id, "--user", "ALICE"))
        assert [(m["role"], m["mode"], m["citations"]) for m in shown["messages"]] == [
            ("user", "", []), ("assistant", "strict", [{"n": 1, "source_name": "handbook.md"}])]
        out = tmp_path / "chat.md"
        written = as_json(run_cli(data_dir, "--json", "chats", "export", chat.id, "-o", str(out)))
        assert written == {"chat": chat.id, "written": str(out)}  # written here, by the CLI's process
        markdown = out.read_text(encoding="utf-8")
        assert markdown.startswith("# Parking\n\n*alice*") and "1. handbook.md" in markdown
        assert run_cli(data_dir, "chats", "export", chat.id).stdout == markdown
        missing = run_cli(data_dir, "chats", "show", "no-such-chat", check=False)
        assert missing.returncode == 3 and "chat 'no-such-chat' not found" in missing.stderr
        nobody = run_cli(data_dir, "--json", "chats", "list", "--user", "nobody", check=False)
        assert nobody.returncode == 3 and '"kind": "NotFound"' in nobody.stderr


def test_jobs_commands_run_here_beside_the_holder(data_dir, monkeypatch, tmp_path):
    """``jobs`` needs the database only (Cli(store=False)): it runs in the CLI's own process, no
    hand-off, while another process holds the store (a worker taking no hand-offs:
    tests/jobs/test_detach_and_kill.py)."""
    doc = tmp_path / "parking.md"
    doc.write_text("# Parking\n\nVisitors park on level two.\n", encoding="utf-8")
    with _holder(data_dir, monkeypatch) as holder:
        holder.save_settings(SYSTEM_ACTOR, {"jobs": {"dashboard_workers": 0}})  # nobody runs the queue
        run_cli(data_dir, "kb", "create", "office")
        [queued] = as_json(run_cli(data_dir, "--json", "ingest", "--kb", "office", "--detach", str(doc)))["jobs"]
        listed = run_cli(data_dir, "--json", "jobs", "list", "--active")
        assert "hand-off" not in listed.stderr
        [row] = as_json(listed)
        assert (row["id"], row["kind"], row["state"]) == (queued["id"], "ingest", "queued")
        assert set(row) == {"id", "kind", "state", "kb_id", "done", "total", "message", "error", "updated_at"}
        shown = as_json(run_cli(data_dir, "--json", "jobs", "show", queued["id"]))
        assert (shown["name"], shown["attempts"], shown["worker_id"]) == ("parking.md", 0, None)
        timed_out = run_cli(data_dir, "jobs", "wait", queued["id"], "--timeout", "0", check=False)
        assert timed_out.returncode == 2 and "(timed out; still going)" in timed_out.stdout
        cancelled = run_cli(data_dir, "jobs", "cancel", queued["id"])
        assert "hand-off" not in cancelled.stderr
        assert cancelled.stdout.strip() == f"cancel requested for ingest job {queued['id']} (cancelled)"
        assert holder.job(SYSTEM_ACTOR, queued["id"]).state == "cancelled"  # the holder sees it
        waited = run_cli(data_dir, "--json", "jobs", "wait", queued["id"], check=False)
        assert waited.returncode == 1 and as_json(waited)["finished"] is True  # finished, not done
        missing = run_cli(data_dir, "jobs", "show", "nope", check=False)
        assert missing.returncode == 3 and "job 'nope' not found" in missing.stderr


def test_kb_sharing_commands_cross_the_hand_off(data_dir, monkeypatch):
    with _holder(data_dir, monkeypatch) as holder:
        for name in ("bob", "carol"):
            holder.sign_up(name, "correct horse battery")
        run_cli(data_dir, "kb", "create", "差旅")
        shared = run_cli(data_dir, "--json", "kb", "share", "差旅", "bob")
        assert "hand-off" in shared.stderr
        assert as_json(shared) == {"kb": "差旅", "visibility": "shared", "shared_with": ["bob"]}
        assert as_json(run_cli(data_dir, "kb", "share", "差旅", "carol", "BOB", "--json"))["shared_with"] == ["bob", "carol"]
        assert holder.shared_with(SYSTEM_ACTOR, "差旅") == ["bob", "carol"]  # changed there
        assert as_json(run_cli(data_dir, "kb", "unshare", "差旅", "bob", "--json"))["shared_with"] == ["carol"]
        assert run_cli(data_dir, "kb", "shared", "差旅").stdout.strip() == "差旅 (shared): carol"
        wrong = run_cli(data_dir, "kb", "unshare", "差旅", "bob", check=False)
        assert wrong.returncode == 2 and "not shared with: bob" in wrong.stderr
        nobody = run_cli(data_dir, "--json", "kb", "share", "差旅", "nobody", check=False)
        assert nobody.returncode == 3 and '"kind": "NotFound"' in nobody.stderr


def test_search_and_doctor_cross_the_hand_off(data_dir, monkeypatch, tmp_path):
    """``search`` and ``doctor`` run in the holder's process and print what they print here; the
    checks of --top-k, --min-score, an empty query and --where are made before anything is sent,
    in the words they have here; ``doctor --repair`` runs on the holder's queue."""
    doc = tmp_path / "parking.md"
    doc.write_text("# Parking\n\nVisitors park on level two.\n", encoding="utf-8")
    with _holder(data_dir, monkeypatch) as holder:
        run_cli(data_dir, "kb", "create", "office")
        run_cli(data_dir, "--json", "ingest", "--kb", "office", str(doc))
        found = run_cli(data_dir, "--json", "search", "--kb", "office", "--top-k", "1", "where do visitors park")
        assert "hand-off" in found.stderr
        report = as_json(found)
        assert list(report) == ["query", "mode", "hits", "timings_ms", "notices"]
        [hit] = report["hits"]
        assert hit["source_name"] == "parking.md" and hit["collection"].startswith("ragdesk_kb_")
        assert {"dense", "bm25", "fused", "score", "page_end", "dense_estimated"} <= set(hit)
        assert "total" in report["timings_ms"]
        text = run_cli(data_dir, "search", "--kb", "office", "where do visitors park").stdout.strip()
        assert text.startswith("1. [") and "parking.md" in text and "Visitors park on level two." in text
        assert run_cli(data_dir, "search", "--min-score", "1", "visitors").stdout.strip() == \
            "no results above the threshold"
        for argv, words in ((["--top-k", "0"], "top_k must be a whole number from 1 to 1000, not 0"),
                            (["--min-score", "2"], "min_score must be a number from 0 to 1, not 2.0"),
                            (["--where", "year"], "--where 'year': write field=value")):
            refused = run_cli(data_dir, "search", *argv, "park", check=False)
            assert refused.returncode == 2 and words in refused.stderr, refused.stderr
            assert "hand-off" not in refused.stderr  # refused before anything was sent
        empty = run_cli(data_dir, "search", " ", check=False)
        assert empty.returncode == 2 and "the search query is empty" in empty.stderr
        missing = run_cli(data_dir, "--json", "search", "--kb", "nope", "park", check=False)
        assert missing.returncode == 3 and '"kind": "NotFound"' in missing.stderr

        checked = run_cli(data_dir, "doctor")
        assert "hand-off" in checked.stderr
        assert checked.stdout.strip() == "healthy: the database and the vector store agree"
        stray = holder.runtime.config.parsed_dir / ("0" * 31 + "1.json")
        stray.parent.mkdir(parents=True, exist_ok=True)
        stray.write_text("{}", encoding="utf-8")
        unhealthy = run_cli(data_dir, "--json", "doctor", check=False)
        assert unhealthy.returncode == 1 and as_json(unhealthy)["orphan_parsed"] == ["0" * 31 + "1"]
        assert as_json(unhealthy)["healthy"] is False and as_json(unhealthy)["repaired"] is False
        repaired = run_cli(data_dir, "doctor", "--repair")  # exit 0: repaired
        assert '"repaired": true' in repaired.stdout and not stray.exists()
        assert as_json(run_cli(data_dir, "--json", "doctor"))["healthy"] is True


def test_sources_commands_cross_the_hand_off_but_those_taking_a_secret(data_dir, monkeypatch, tmp_path):
    """add-folder, list, sync and log run in the holder; a relative folder is made absolute where the
    command was typed (the holder works in another folder). add-webdav, add-dingtalk and
    dingtalk-workspaces are refused there, saying why (the secret would cross masked), and never
    show the secret they read."""
    import os

    share = tmp_path / "share"
    (share / "team").mkdir(parents=True)
    (share / "team" / "plan.md").write_text("# Plan\n\nShip the heron release in May.\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the holder's working folder is not the command's (REPO)
    with _holder(data_dir, monkeypatch) as holder:
        holder.save_settings(SYSTEM_ACTOR, {"sources": {"kinds": {"folder": {"allowed_roots": [str(share)]}}}})
        holder.create_kb(SYSTEM_ACTOR, "team")
        added = run_cli(data_dir, "--json", "sources", "add-folder", "--kb", "team",
                        os.path.relpath(share / "team", REPO))
        assert "hand-off" in added.stderr and as_json(added)["added"] == 1
        [row] = holder.sources(SYSTEM_ACTOR)
        assert row.title == f"Folder: {share / 'team'}"
        listed = run_cli(data_dir, "sources", "list")
        assert "hand-off" in listed.stderr and listed.stdout.startswith(f"{row.id}  folder Folder: {share / 'team'}")
        synced = as_json(run_cli(data_dir, "--json", "sources", "sync", row.id))
        assert (synced["source_id"], synced["status"]) == (row.id, "done")
        assert [e["trigger"] for e in as_json(run_cli(data_dir, "--json", "sources", "log", row.id))] == [
            "manual", "import"]
        for argv in (("add-webdav", "--kb", "team", "--username", "u", "https://dav.example/dav/"),
                     ("dingtalk-workspaces", "--app-key", "k", "--operator", "o"),
                     ("add-dingtalk", "--kb", "team", "--app-key", "k", "--operator", "o", "--workspace", "w")):
            refused = run_cli(data_dir, "sources", *argv, check=False, stdin="typed-S3cret\n")
            assert refused.returncode == 9, refused.stderr
            assert (f"holds the store and 'sources {argv[0]}' is not handed off: its secret stays in this process"
                    in refused.stderr) and "note:" not in refused.stderr
            assert "typed-S3cret" not in refused.stdout + refused.stderr
        assert [r.id for r in holder.sources(SYSTEM_ACTOR)] == [row.id]
