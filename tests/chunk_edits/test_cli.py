"""``python -m core chunks …`` as a user runs it: real processes, a real data folder."""

from __future__ import annotations

from tests.chunk_edits.conftest import HANDBOOK
from tests.cli.test_cli import as_json, run_cli


def test_chunks_list_edit_keywords_disable_enable_add_history(data_dir, tmp_path):
    doc = tmp_path / "handbook.md"
    doc.write_text(HANDBOOK, encoding="utf-8")
    run_cli(data_dir, "kb", "create", "office")
    run_cli(data_dir, "ingest", "--kb", "office", str(doc))
    [rec] = as_json(run_cli(data_dir, "--json", "files", "list", "--kb", "office"))
    listing = as_json(run_cli(data_dir, "--json", "chunks", "list", rec["id"]))
    [parking] = [c for c in listing["chunks"] if "north garage" in c["text"]]
    index = str(parking["chunk_index"])
    edited = as_json(run_cli(data_dir, "--json", "chunks", "edit", rec["id"], index,
                             "--text", "Visitors park at the zeppelin hangar.", "--keywords", "car park, parking lot"))
    assert edited["state"] == "edited" and edited["keywords"] == ["car park", "parking lot"]
    hits = as_json(run_cli(data_dir, "--json", "search", "--kb", "office", "--mode", "bm25", "--min-score", "0",
                           "zeppelin"))["hits"]
    assert hits[0]["text"] == "Visitors park at the zeppelin hangar."
    human = run_cli(data_dir, "chunks", "list", rec["id"]).stdout
    assert f"#{index} [edited]" in human and "keywords: car park, parking lot" in human
    assert as_json(run_cli(data_dir, "--json", "chunks", "disable", rec["id"], index))["disabled"] is True
    hits = as_json(run_cli(data_dir, "--json", "search", "--kb", "office", "--mode", "bm25", "--min-score", "0",
                           "zeppelin"))["hits"]
    assert hits == []
    run_cli(data_dir, "chunks", "enable", rec["id"], index)
    added_text = tmp_path / "added.txt"
    added_text.write_text("The library opens at eight.", encoding="utf-8")
    added = as_json(run_cli(data_dir, "--json", "chunks", "add", rec["id"], "--text-file", str(added_text)))
    assert added["state"] == "added"
    history = as_json(run_cli(data_dir, "--json", "chunks", "history", rec["id"]))
    assert [h["action"] for h in history] == ["add", "enable", "disable", "edit"]
    assert {h["actor_name"] for h in history} == {"local admin (CLI)"}
    missing = run_cli(data_dir, "chunks", "edit", rec["id"], "999", "--text", "x", check=False)
    assert missing.returncode == 3 and "no chunk 999" in missing.stderr
    empty = run_cli(data_dir, "chunks", "add", rec["id"], check=False)
    assert empty.returncode == 2 and "--text" in empty.stderr


def test_chunk_commands_are_handed_off_to_the_process_holding_the_store(data_dir, tmp_path, monkeypatch):
    """While another process (the dashboard) holds the embedded store, the commands run there."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.ingest.service import Upload
    from core.types import SYSTEM_ACTOR

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with Engine(RuntimeConfig.from_env(data_dir), serve_handoff=True) as holder:
        holder.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"}})
        holder.create_kb(SYSTEM_ACTOR, "office")
        [result] = holder.ingest(SYSTEM_ACTOR, "office", [Upload("handbook.md", HANDBOOK.encode())])
        listing = as_json(run_cli(data_dir, "--json", "chunks", "list", result.file_id))
        [lunch] = [c for c in listing["chunks"] if "canteen" in c["text"]]
        proc = run_cli(data_dir, "--json", "chunks", "edit", result.file_id, str(lunch["chunk_index"]),
                       "--keywords", "cafeteria")
        assert "hand-off" in proc.stderr and as_json(proc)["keywords"] == ["cafeteria"]
        [hit] = holder.search(SYSTEM_ACTOR, "cafeteria", ["office"], mode="bm25", min_score=0.0).hits
        assert "canteen" in hit.text
        history = as_json(run_cli(data_dir, "--json", "chunks", "history", result.file_id))
        assert [h["action"] for h in history] == ["edit"]
