"""``python -m core curated …`` as a user runs it: real processes, a real data folder."""

from __future__ import annotations

from tests.cli.test_cli import as_json, run_cli


def test_curated_add_list_export_import_delete(data_dir, tmp_path):
    run_cli(data_dir, "kb", "create", "hr")
    added = as_json(run_cli(data_dir, "--json", "curated", "add", "--kb", "hr", "--question", "试用期是多长时间？",
                            "--answer", "试用期为三个月。", "--approved-by", "HR board"))
    assert added["approved_by"] == "HR board" and added["answer"] == "试用期为三个月。"
    [listed] = as_json(run_cli(data_dir, "curated", "list", "--kb", "hr", "--json"))
    assert listed == added
    exported = tmp_path / "faq.csv"
    run_cli(data_dir, "curated", "export", "--kb", "hr", "-o", str(exported))
    assert exported.read_text(encoding="utf-8").splitlines()[1].startswith("试用期是多长时间？,试用期为三个月。,HR board,")
    bad = tmp_path / "bad.csv"
    bad.write_text("question,answer\nWho approves expenses?,Your manager.\n,no question\n", encoding="utf-8")
    proc = run_cli(data_dir, "--json", "curated", "import", "--kb", "hr", str(bad), check=False)
    assert proc.returncode == 1  # a bad row: the good ones are stored, the exit code says not all were
    assert as_json(proc) == {"added": 1, "updated": 0, "errors": [{"line": 3, "message": "the curated question is empty"}]}
    answer = as_json(run_cli(data_dir, "--json", "ask", "--mode", "strict", "试用期是多长时间"))
    assert answer["text"] == "试用期为三个月。" and answer["sources"] == ["curated"] and answer["llm_called"] is False
    assert (answer["citations"][0]["origin"], answer["citations"][0]["approved_by"]) == ("curated", "HR board")
    run_cli(data_dir, "curated", "delete", "--kb", "hr", added["id"])
    assert len(as_json(run_cli(data_dir, "--json", "curated", "list", "--kb", "hr"))) == 1
    missing = run_cli(data_dir, "curated", "list", "--kb", "nope", check=False)
    assert missing.returncode == 3 and "not found" in missing.stderr


def test_curated_delete_refuses_an_answer_of_another_knowledge_base(data_dir):
    run_cli(data_dir, "kb", "create", "hr")
    run_cli(data_dir, "kb", "create", "it")
    added = as_json(run_cli(data_dir, "--json", "curated", "add", "--kb", "hr", "--question", "Who signs leave?",
                            "--answer", "Your team lead.", "--approved-at", "2026-03-01T09:30:00+01:00"))
    assert added["approved_at"].startswith("2026-03-01T08:30:00")  # stored in UTC
    wrong = run_cli(data_dir, "curated", "delete", "--kb", "it", added["id"], check=False)
    assert wrong.returncode == 3 and "not found in knowledge base 'it'" in wrong.stderr
    assert len(as_json(run_cli(data_dir, "--json", "curated", "list", "--kb", "hr"))) == 1  # nothing deleted


def test_curated_commands_cross_the_hand_off(data_dir, tmp_path, monkeypatch):
    """While another process holds the embedded store, the derived commands run there: the CSV read
    here crosses as text, each id of ``delete`` is one call, the export is written here."""
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.types import SYSTEM_ACTOR

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with Engine(RuntimeConfig.from_env(data_dir), serve_handoff=True) as holder:
        holder.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"}})
        run_cli(data_dir, "kb", "create", "hr")
        sheet = tmp_path / "qa.csv"
        sheet.write_text("question,answer\n试用期多长？,三个月。\nWho approves?,Your manager.\n", encoding="utf-8")
        imported = run_cli(data_dir, "--json", "curated", "import", "--kb", "hr", str(sheet))
        assert "hand-off" in imported.stderr and as_json(imported) == {"added": 2, "updated": 0, "errors": []}
        exported = tmp_path / "out.csv"
        wrote = run_cli(data_dir, "curated", "export", "--kb", "hr", "-o", str(exported))
        assert wrote.stdout.strip() == f"wrote {exported}"
        assert exported.read_text(encoding="utf-8").splitlines()[1].startswith("试用期多长？,三个月。,")
        ids = [e["id"] for e in as_json(run_cli(data_dir, "--json", "curated", "list", "--kb", "hr"))]
        deleted = as_json(run_cli(data_dir, "--json", "curated", "delete", "--kb", "hr", *ids))
        assert deleted == {"deleted": ids} and as_json(run_cli(data_dir, "--json", "curated", "list", "--kb", "hr")) == []
        gone = run_cli(data_dir, "curated", "delete", "--kb", "hr", ids[0], check=False)
        assert gone.returncode == 3 and "not found" in gone.stderr  # the typed error crosses back
