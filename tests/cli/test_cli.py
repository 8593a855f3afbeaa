"""The CLI end to end, as a user runs it: real processes, a real data folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD

REPO = Path(__file__).resolve().parents[2]


def run_cli(data_dir: Path, *args: str, check: bool = True, env_extra: dict | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess:
    """``python -m core *args`` in the repository's folder; ``stdin``: what standard input holds."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update({"RAGDESK_DATA_DIR": str(data_dir), "RAGDESK_EMBEDDING__MODEL": "hash-64", **(env_extra or {})})
    proc = subprocess.run([sys.executable, "-m", "core", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300, input=stdin)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def as_json(proc: subprocess.CompletedProcess):
    return json.loads(proc.stdout)


@pytest.fixture
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "差旅.md").write_text(POLICY_MD, encoding="utf-8")
    (folder / "handbook.txt").write_text(HANDBOOK_MD, encoding="utf-8")
    (folder / "gbk.txt").write_bytes("第一条 本制度适用于全体员工的年度休假安排。".encode("gbk"))
    return folder


def test_kb_ingest_search_delete_flow(data_dir, docs):
    run_cli(data_dir, "kb", "create", "handbook")
    ingested = as_json(run_cli(data_dir, "--json", "ingest", "--kb", "handbook", str(docs)))
    assert sorted(r["status"] for r in ingested) == ["indexed"] * 3
    again = as_json(run_cli(data_dir, "--json", "ingest", "--kb", "handbook", str(docs / "差旅.md")))
    assert again[0]["status"] == "duplicate"

    found = as_json(run_cli(data_dir, "--json", "search", "--kb", "handbook", "--min-score", "0", "年度休假"))
    assert found["hits"][0]["source_name"] == "gbk.txt"  # GBK decoded, Chinese tokenised

    kbs = as_json(run_cli(data_dir, "--json", "kb", "list"))
    assert kbs[0]["name"] == "handbook" and kbs[0]["files"] == 3 and kbs[0]["vectors"] == kbs[0]["chunks"] > 0

    files = as_json(run_cli(data_dir, "--json", "files", "list", "--kb", "handbook"))
    victim = next(f for f in files if f["name"] == "差旅.md")
    run_cli(data_dir, "files", "delete", victim["id"])
    kbs = as_json(run_cli(data_dir, "--json", "kb", "list"))
    assert kbs[0]["files"] == 2 and kbs[0]["vectors"] == kbs[0]["chunks"]
    assert as_json(run_cli(data_dir, "--json", "doctor"))["healthy"] is True

    run_cli(data_dir, "kb", "rename", "handbook", "manual")
    assert as_json(run_cli(data_dir, "--json", "reindex", "--kb", "manual"))["status"] == "done"
    run_cli(data_dir, "kb", "delete", "manual")
    assert as_json(run_cli(data_dir, "--json", "kb", "list")) == []


def test_errors_are_one_clear_line_with_the_right_exit_code(data_dir, docs):
    missing = run_cli(data_dir, "search", "--kb", "nope", "x", check=False)
    assert missing.returncode == 3 and missing.stderr.strip() == "error: knowledge base 'nope' not found"
    bad = run_cli(data_dir, "settings", "set", "chunking.chunk_overlap", "900", check=False)
    assert bad.returncode == 2 and "chunk_overlap (900) must be smaller than chunk_size" in bad.stderr
    assert "Traceback" not in bad.stderr + missing.stderr
    run_cli(data_dir, "kb", "create", "kb")
    (docs / "broken.docx").write_bytes(b"this is not a zip")
    results = run_cli(data_dir, "--json", "ingest", "--kb", "kb", str(docs), check=False)
    assert results.returncode == 1
    by_name = {r["name"]: r for r in json.loads(results.stdout)}
    assert by_name["broken.docx"]["status"] == "failed" and by_name["broken.docx"]["error"]
    assert by_name["差旅.md"]["status"] == "indexed"


def test_settings_get_and_set(data_dir):
    run_cli(data_dir, "settings", "set", "strict.rag_strict_mode", "true")
    assert run_cli(data_dir, "settings", "get", "strict.rag_strict_mode").stdout.strip() == "True"
    run_cli(data_dir, "settings", "set", "llm.api_key", "sk-secret-value")
    shown = run_cli(data_dir, "settings", "get", "llm").stdout
    assert "sk-secret-value" not in shown and "********" in shown


def test_cli_hands_off_to_the_process_holding_the_store(data_dir, docs):
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
        created = run_cli(data_dir, "--json", "kb", "create", "shared-kb")
        assert "hand-off" in created.stderr
        ingested = as_json(run_cli(data_dir, "--json", "ingest", "--kb", "shared-kb", str(docs / "handbook.txt")))
        assert ingested[0]["status"] == "indexed"
        hits = as_json(run_cli(data_dir, "--json", "search", "--kb", "shared-kb", "--min-score", "0", "laptop monitor"))
        assert hits["hits"] and "laptop" in hits["hits"][0]["text"]
        missing = run_cli(data_dir, "search", "--kb", "nope", "x", check=False)
        assert missing.returncode == 3  # typed errors cross the hand-off too
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
    # the holder is gone: the CLI opens the store itself and sees the same data
    assert as_json(run_cli(data_dir, "--json", "kb", "list"))[0]["files"] == 1


@pytest.mark.shared
def test_zh_policy_flow(data_dir):
    folder = shared_path("zh-policy")
    run_cli(data_dir, "kb", "create", "法规")
    results = as_json(run_cli(data_dir, "--json", "ingest", "--kb", "法规", str(folder)))
    md = [r for r in results if r["name"].endswith(".md")]
    assert md and md[0]["status"] == "indexed" and md[0]["chunks"] > 5
    hits = as_json(run_cli(data_dir, "--json", "search", "--kb", "法规", "--min-score", "0", "人民检察院 行政诉讼 监督"))["hits"]
    assert hits and "检察" in hits[0]["text"]


def test_a_data_folder_too_deep_for_a_unix_socket_still_gets_a_hand_off(tmp_path):
    from core.handoff.channel import socket_path

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    path = socket_path(deep)
    assert len(str(path)) <= 100 and path == socket_path(deep)  # short, and the same for every process
    from core.config import RuntimeConfig
    from core.engine import Engine

    with Engine(RuntimeConfig(data_dir=deep, database_url=f"sqlite:///{deep / 'x.db'}"), serve_handoff=True):
        assert path.exists()
    assert not path.exists()
