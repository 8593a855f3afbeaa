"""``python -m core assistants …`` and ``ask --assistant`` as a user runs them: real processes, a real
data folder, documents written here (Chinese included); and handed off to the process holding the
embedded store."""

from __future__ import annotations

from tests.assistants.conftest import ENGINEERING, HR, REFUSAL_ZH
from tests.cli.test_cli import as_json, run_cli

LEAVE_ZH = "员工每年有多少天带薪年假？"
DEPLOY = "On which days do production deployments happen?"


def test_assistants_create_list_show_update_ask_delete(data_dir, tmp_path):
    for kb, name, text in (("hr", "hr.md", HR), ("engineering", "eng.md", ENGINEERING)):
        doc = tmp_path / name
        doc.write_text(text, encoding="utf-8")
        run_cli(data_dir, "kb", "create", kb)
        run_cli(data_dir, "ingest", "--kb", kb, str(doc))
    made = as_json(run_cli(data_dir, "--json", "assistants", "create", "人事助手", "--kb", "hr", "--mode", "strict",
                           "--refusal-text", REFUSAL_ZH, "--top-k", "2", "--visibility", "public",
                           "--strict-min-similarity", "0.3"))  # the hash embedder scores this pair 0.33
    assert made["kbs"] == ["hr"] and made["top_k"] == 2 and made["refusal_text"] == REFUSAL_ZH
    listed = run_cli(data_dir, "assistants", "list").stdout
    assert "人事助手" in listed and "strict" in listed and "public" in listed
    assert "refusal text" in run_cli(data_dir, "assistants", "show", "人事助手").stdout
    hit = as_json(run_cli(data_dir, "--json", "ask", "--assistant", "人事助手", LEAVE_ZH))
    assert hit["mode"] == "strict" and hit["hit"] and {c["source_name"] for c in hit["citations"]} == {"hr.md"}
    refused = as_json(run_cli(data_dir, "--json", "ask", "--assistant", "人事助手", DEPLOY))
    assert refused["text"] == REFUSAL_ZH and not refused["hit"] and not refused["llm_called"]
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Answer as the HR desk.\n{{CONTEXT}}\n{{QUERY}}", encoding="utf-8")
    changed = as_json(run_cli(data_dir, "--json", "assistants", "update", "人事助手", "--kb", "hr", "--kb",
                              "engineering", "--prompt-file", str(prompt), "--clear", "top_k", "--rename", "helpdesk"))
    assert changed["name"] == "helpdesk" and changed["kbs"] == ["hr", "engineering"]
    assert changed["top_k"] is None and changed["prompt"].startswith("Answer as the HR desk.")
    assert as_json(run_cli(data_dir, "--json", "ask", "--assistant", "helpdesk", DEPLOY))["hit"]
    both = run_cli(data_dir, "ask", "--assistant", "helpdesk", "--kb", "hr", DEPLOY, check=False)
    assert both.returncode == 2 and "--assistant" in both.stderr
    bad = run_cli(data_dir, "assistants", "update", "helpdesk", "--prompt", "no placeholder", check=False)
    assert bad.returncode == 2 and "{{CONTEXT}}" in bad.stderr
    run_cli(data_dir, "assistants", "delete", "helpdesk")
    assert as_json(run_cli(data_dir, "--json", "assistants", "list")) == []
    gone = run_cli(data_dir, "ask", "--assistant", "helpdesk", DEPLOY, check=False)
    assert gone.returncode == 3 and "not found" in gone.stderr


def test_assistant_commands_are_handed_off_to_the_process_holding_the_store(data_dir, monkeypatch):
    from core.config import RuntimeConfig
    from core.engine import Engine
    from core.ingest.service import Upload
    from core.types import SYSTEM_ACTOR

    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with Engine(RuntimeConfig.from_env(data_dir), serve_handoff=True) as holder:
        holder.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "local", "model": "hash-64"}})
        holder.create_kb(SYSTEM_ACTOR, "hr")
        [result] = holder.ingest(SYSTEM_ACTOR, "hr", [Upload("hr.md", HR.encode())])
        assert result.status == "indexed"
        proc = run_cli(data_dir, "--json", "assistants", "create", "hr-bot", "--kb", "hr", "--refusal-text", REFUSAL_ZH)
        assert "hand-off" in proc.stderr and as_json(proc)["kbs"] == ["hr"]
        assert [a.name for a in holder.list_assistants(SYSTEM_ACTOR)] == ["hr-bot"]
        refused = as_json(run_cli(data_dir, "--json", "ask", "--assistant", "hr-bot", DEPLOY))
        assert refused["text"] == REFUSAL_ZH and not refused["llm_called"]


def test_an_assistants_filter_from_the_cli_scopes_ask_assistant(data_dir, tmp_path):
    from tests.metadata.conftest import LISBON, PORTO

    run_cli(data_dir, "kb", "create", "travel")
    for name, text in (("lisbon.md", LISBON), ("porto.md", PORTO)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        run_cli(data_dir, "ingest", "--kb", "travel", str(tmp_path / name))
    run_cli(data_dir, "fields", "add", "--kb", "travel", "office", "text")
    files = {f["name"]: f["id"] for f in as_json(run_cli(data_dir, "--json", "files", "list", "--kb", "travel"))}
    run_cli(data_dir, "meta", "set", files["lisbon.md"], "office=Lisbon")
    run_cli(data_dir, "meta", "set", files["porto.md"], "office=Porto")
    typo = run_cli(data_dir, "assistants", "create", "porto", "--kb", "travel", "--where", "ofice=Porto", check=False)
    assert typo.returncode == 2 and "'ofice'" in typo.stderr
    made = as_json(run_cli(data_dir, "--json", "assistants", "create", "porto", "--kb", "travel", "--where",
                           "office=Porto", "--refusal-text", "Porto only."))
    assert made["where"] == {"office": "Porto"}
    assert "office" in run_cli(data_dir, "assistants", "show", "porto").stdout
    taxi = "Are taxi rides to the airport reimbursed?"  # only Lisbon's policy answers it
    refused = as_json(run_cli(data_dir, "--json", "ask", "--assistant", "porto", taxi))
    assert refused["text"] == "Porto only." and not refused["hit"] and not refused["llm_called"]
    run_cli(data_dir, "assistants", "update", "porto", "--clear", "where")
    assert as_json(run_cli(data_dir, "--json", "ask", "--assistant", "porto", taxi))["hit"]
    both = run_cli(data_dir, "ask", "--assistant", "porto", "--where", "office=Lisbon", taxi, check=False)
    assert both.returncode == 2 and "own filter" in both.stderr
