"""``python -m core fields|meta`` and ``--where`` on search and ask, as a user runs them: real
processes, a real data folder, one file in Chinese."""

from __future__ import annotations

from tests.cli.test_cli import as_json, run_cli
from tests.metadata.conftest import LISBON, PORTO, SHANGHAI


def test_fields_values_csv_and_where(data_dir, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in (("lisbon.md", LISBON), ("porto.md", PORTO), ("shanghai.md", SHANGHAI)):
        (docs / name).write_text(text, encoding="utf-8")
    run_cli(data_dir, "kb", "create", "policies")
    ingested = as_json(run_cli(data_dir, "--json", "ingest", "--kb", "policies", str(docs)))
    ids = {r["name"]: r["file_id"] for r in ingested}
    run_cli(data_dir, "fields", "add", "--kb", "policies", "office", "text")
    run_cli(data_dir, "fields", "add", "--kb", "policies", "year", "number")
    run_cli(data_dir, "fields", "add", "--kb", "policies", "生效日期", "date")
    listed = as_json(run_cli(data_dir, "--json", "fields", "list", "--kb", "policies"))
    assert {(f["name"], f["kind"]) for f in listed} >= {("office", "text"), ("year", "number"), ("生效日期", "date")}
    shown = as_json(run_cli(data_dir, "--json", "meta", "set", ids["shanghai.md"], "office=上海", "year=2025",
                            "生效日期=2025-07-01"))
    assert shown["values"]["office"] == "上海" and shown["values"]["year"] == 2025
    sheet = tmp_path / "meta.csv"
    sheet.write_text("file,office,year,生效日期\nlisbon.md,Lisbon,2025,2025-03-01\nporto.md,Porto,20x4,\n",
                     encoding="utf-8")
    proc = run_cli(data_dir, "--json", "meta", "import", "--kb", "policies", str(sheet), check=False)
    assert proc.returncode == 1  # a bad row: the good ones stored, the exit code says not all were
    assert as_json(proc) == {"updated": 1, "errors": [{"line": 3, "message": "year: '20x4' is not a number"}]}

    def found(*where: str, query: str = "hotel costs per night 住宿费") -> set[str]:
        args = [a for w in where for a in ("--where", w)]
        hits = as_json(run_cli(data_dir, "--json", "search", "--kb", "policies", "--mode", "bm25", "--min-score", "0",
                               *args, query))["hits"]
        return {h["source_name"] for h in hits}

    assert found() == {"lisbon.md", "porto.md", "shanghai.md"}
    assert found("office=Lisbon|上海") == {"lisbon.md", "shanghai.md"}
    assert found("year>=2025", "生效日期=2025-06-01..") == {"shanghai.md"}
    assert found("生效日期=..2025-03-01") == {"lisbon.md"}
    assert found("file_name=porto.md") == {"porto.md"}
    bad = run_cli(data_dir, "search", "--where", "year>=soon", "hotel", check=False)
    assert bad.returncode != 0 and "not a number" in bad.stderr
    answer = as_json(run_cli(data_dir, "--json", "ask", "--mode", "strict", "--where", "office=Porto",
                             "上海出差住宿费每晚不超过多少？"))
    assert answer["hit"] is False and answer["llm_called"] is False and answer["citations"] == []
    answer = as_json(run_cli(data_dir, "--json", "ask", "--mode", "strict", "--where", "office=上海",
                             "上海出差住宿费每晚不超过多少？"))
    assert answer["hit"] is True and "八百元" in answer["text"]
    run_cli(data_dir, "fields", "delete", "--kb", "policies", "office")
    gone = run_cli(data_dir, "search", "--where", "office=Porto", "hotel", check=False)
    assert gone.returncode != 0 and "office" in gone.stderr


def test_metadata_commands_cross_the_hand_off(data_dir, tmp_path):
    """While another process holds the embedded store (the dashboard), the CLI's metadata commands
    and --where run there, through the hand-off, with the same results and typed errors."""
    import os
    import subprocess
    import sys
    import textwrap

    from tests.cli.test_cli import REPO

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "porto.md").write_text(PORTO, encoding="utf-8")
    (docs / "lisbon.md").write_text(LISBON, encoding="utf-8")
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
        env={**{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")},
             "RAGDESK_EMBEDDING__MODEL": "hash-64"})
    try:
        assert holder.stdout.readline().strip() == "ready"
        run_cli(data_dir, "kb", "create", "policies")
        ingested = as_json(run_cli(data_dir, "--json", "ingest", "--kb", "policies", str(docs)))
        added = run_cli(data_dir, "fields", "add", "--kb", "policies", "office", "text")
        assert "hand-off" in added.stderr
        sheet = tmp_path / "m.csv"
        sheet.write_text("file,office\nporto.md,Porto\nlisbon.md,Lisbon\n", encoding="utf-8")
        assert as_json(run_cli(data_dir, "--json", "meta", "import", "--kb", "policies", str(sheet)))["updated"] == 2
        hits = as_json(run_cli(data_dir, "--json", "search", "--kb", "policies", "--mode", "bm25", "--min-score", "0",
                               "--where", "office=Porto", "hotel costs per night"))["hits"]
        assert {h["source_name"] for h in hits} == {"porto.md"}
        shown = as_json(run_cli(data_dir, "--json", "meta", "show", ingested[0]["file_id"]))
        assert shown["values"]["office"] in ("Porto", "Lisbon")
        bad = run_cli(data_dir, "search", "--where", "office>=x", "hotel", check=False)
        assert bad.returncode != 0  # office is text: no range; the typed error crosses the hand-off
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
