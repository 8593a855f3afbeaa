"""The CLI's contract, frozen: ``--help`` texts, ``--json`` and text outputs, stderr and exit codes of
the commands built from the operation registry (core/cli/derived.py), compared with goldens
recorded from the hand-written commands they replaced (tests/cli/golden/). A run against a fresh
data folder with a small knowledge base (hash embedder); ids, times and paths are normalised.

A deliberate change of wording or shape fails here: when it is meant, record again with
``RAGDESK_GOLDEN_UPDATE=1`` and commit the goldens with the change (the diff is the review).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

from core.types import SYSTEM_ACTOR
from tests.chunk_edits.conftest import HANDBOOK

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("RAGDESK_GOLDEN_UPDATE") == "1"

HELP = [(), ("fields",), ("fields", "list"), ("fields", "add"), ("fields", "delete"),
        ("meta",), ("meta", "show"), ("meta", "set"), ("meta", "import"),
        ("chunks",), *[("chunks", c) for c in ("list", "edit", "disable", "enable", "add", "history")],
        ("curated",), *[("curated", c) for c in ("list", "add", "delete", "import", "export")],
        ("assistants",), *[("assistants", c) for c in ("list", "show", "create", "update", "delete")],
        ("kb",), *[("kb", c) for c in ("create", "list", "rename", "delete", "index", "share", "unshare", "shared")],
        ("files",), ("files", "list"), ("files", "delete"), ("settings",), ("settings", "get"), ("settings", "set"),
        ("chats",), *[("chats", c) for c in ("list", "show", "export")],
        ("jobs",), *[("jobs", c) for c in ("list", "show", "wait", "cancel")],
        ("users",), *[("users", c) for c in ("list", "set-role", "disable", "enable", "reset-password", "sign-out",
                                             "create")],
        ("tokens",), *[("tokens", c) for c in ("create", "list", "revoke")],
        ("search",), ("doctor",), ("reindex",),
        ("sources",), *[("sources", c) for c in ("list", "add-web", "add-folder", "add-webdav", "add-dingtalk",
                                                 "dingtalk-workspaces", "sync", "log")]]
HELP += [("ask",), ("compare",)]  # issue 34: ask and compare (_ask_and_compare)

PASSWORD = "correct horse battery"  # read from standard input (never an argument); must never be printed
HELP += [("gdrive",), *[("gdrive", c) for c in ("connect", "status", "ls", "import", "sync", "disconnect")]]
HELP += [("ingest",)]  # issue 34: ingest (_ingest)


class Cli:
    """Runs ``python -m core`` in this process (main(argv)), recording each call as a golden case."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.names: dict[str, str] = {}  # a volatile value -> its placeholder
        self.raw: dict[str, tuple] = {}

    def name(self, value: str, placeholder: str) -> None:
        self.names[value] = placeholder

    def __call__(self, case: str | None, *argv: str, stdin: str = "") -> tuple[int, str]:
        """``case`` None: a step of the set-up, not recorded. ``stdin``: what standard input holds
        (not a terminal: a password is read from it)."""
        from core.cli.main import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin(stdin):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # --help, argparse's errors
                code = exc.code if isinstance(exc.code, int) else 1
        if case is None:
            return code, out.getvalue()
        self.raw[case] = (argv, code, out.getvalue(), err.getvalue())
        return code, out.getvalue()

    @property
    def cases(self) -> dict[str, str]:
        """Each case's text, normalised with every name learnt (an id is known after its call)."""
        return {case: (f"$ python -m core {' '.join(self._normal(a) for a in argv)}\nexit: {code}\n"
                       f"--- stdout\n{self._normal(_fixed_order(out))}--- stderr\n{self._normal(err)}")
                for case, (argv, code, out, err) in self.raw.items()}

    def _normal(self, text: str) -> str:
        text = text.replace(str(self.tmp), "<tmp>")
        for value, placeholder in sorted(self.names.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(value, placeholder)
        text = re.sub(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "<uuid>", text)
        text = re.sub(r"\b[0-9a-f]{32}\b", "<id>", text)  # ids not named above (job ids, ...)
        # a search's timings: each stage kept, its milliseconds masked (they differ on every run)
        text = re.sub(r'"timings_ms": \{[^{}]*\}', lambda m: re.sub(
            r'(": )-?\d+(\.\d+)?([eE][-+]?\d+)?', r"\1N", m.group(0)), text)
        # an answer's time in the text form ("(12 ms)", "mean 3 ms"): the words kept, the figure masked
        text = re.sub(r"\b\d+(\.\d+)? ms\b", "N ms", text)
        # dates and times keep their shape (a format change must show), not their digits: a golden
        # recorded one day must match on the next
        return re.sub(r"\b\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?)?",
                      lambda m: re.sub(r"\d", "N", m.group(0)), text)


@contextlib.contextmanager
def _stdin(text: str):
    import sys

    saved, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


@pytest.fixture
def cli(data_dir, tmp_path, monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RAGDESK_DATA_DIR", str(data_dir))
    monkeypatch.setenv("RAGDESK_EMBEDDING__MODEL", "hash-64")
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps help at the terminal's width
    return Cli(tmp_path)


def _fixed_order(out: str) -> str:
    """A file's metadata ``values`` come in no fixed order from the store: sorted by name here."""
    import json

    try:
        value = json.loads(out)
    except ValueError:
        return out

    def sort(v):
        if isinstance(v, list):
            return [sort(x) for x in v]
        if isinstance(v, dict):
            return {k: (dict(sorted(x.items())) if k == "values" and isinstance(x, dict) else sort(x)) for k, x in v.items()}
        return v

    return json.dumps(sort(value), ensure_ascii=False, indent=2) + "\n"


def _json(text: str):
    import json

    return json.loads(text)


def test_commands_match_their_goldens(cli, tmp_path, monkeypatch):
    for argv in HELP:
        cli("help_" + ("_".join(argv) or "top"), *argv, "--help")

    cli("kb_list_empty", "kb", "list")
    cli("kb_list_empty_json", "--json", "kb", "list")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (docs / "上海.md").write_text("# 差旅\n\n上海出差住宿费每晚不超过八百元。\n", encoding="utf-8")
    assert cli(None, "kb", "create", "office")[0] == 0
    assert cli(None, "--json", "ingest", "--kb", "office", str(docs))[0] == 0
    files = {f["name"]: f["id"] for f in _json(cli(None, "--json", "files", "list", "--kb", "office")[1])}
    handbook, shanghai = files["handbook.md"], files["上海.md"]
    cli.name(handbook, "<file:handbook>")
    cli.name(shanghai, "<file:shanghai>")
    cli.name(_json(cli(None, "--json", "kb", "list")[1])[0]["id"], "<kb:office>")

    # fields
    cli("fields_list_json", "--json", "fields", "list", "--kb", "office")
    cli("fields_list_text", "fields", "list", "--kb", "office")
    cli("fields_add_json", "fields", "add", "--kb", "office", "year", "number", "--json")
    cli("fields_add_text", "fields", "add", "--kb", "office", "办公室", "text")
    cli("fields_add_tags", "fields", "add", "--kb", "office", "topics", "tags")
    cli("fields_add_bad_kind", "fields", "add", "--kb", "office", "x", "colour")
    cli("fields_add_no_kb", "fields", "add", "year", "number")
    cli("fields_add_unknown_kb", "--json", "fields", "add", "--kb", "nope", "year", "number")
    cli("fields_list_after", "--json", "fields", "list", "--kb", "office")
    cli("fields_no_verb", "fields")

    # meta
    cli("meta_set_json", "--json", "meta", "set", shanghai, "year=2025", "办公室=上海", "topics=travel|hotel")
    cli("meta_set_text", "meta", "set", handbook, "year=2024")
    cli("meta_set_remove", "--json", "meta", "set", handbook, "year=")
    cli("meta_set_bad_pair", "meta", "set", handbook, "year")
    cli("meta_set_bad_value", "--json", "meta", "set", handbook, "year=soon")
    cli("meta_show_json", "meta", "show", shanghai, "--json")
    cli("meta_show_text", "meta", "show", handbook)  # one value: the text form keeps the store's order
    cli("meta_show_unknown", "meta", "show", "0000")
    sheet = tmp_path / "meta.csv"
    sheet.write_text("file,year,办公室\nhandbook.md,2023,Lisbon\n上海.md,20x4,\n", encoding="utf-8")
    cli("meta_import_json", "--json", "meta", "import", "--kb", "office", str(sheet))
    cli("meta_import_text", "meta", "import", "--kb", "office", str(sheet))
    good = tmp_path / "good.csv"
    good.write_text("file,year\nhandbook.md,2022\n", encoding="utf-8")
    cli("meta_import_good", "meta", "import", "--kb", "office", str(good))
    cli("meta_import_missing", "meta", "import", "--kb", "office", str(tmp_path / "absent.csv"))
    cli("fields_delete_json", "--json", "fields", "delete", "--kb", "office", "topics")
    cli("fields_delete_text", "fields", "delete", "--kb", "office", "办公室")
    cli("fields_delete_unknown", "fields", "delete", "--kb", "office", "nothing")

    # chunks
    cli("chunks_list_json", "--json", "chunks", "list", handbook)
    cli("chunks_list_text", "chunks", "list", handbook)
    cli("chunks_edit_json", "--json", "chunks", "edit", handbook, "1", "--text", "Visitors park at the hangar.",
        "--keywords", "car park, parking lot")
    cli("chunks_edit_keywords_only", "chunks", "edit", handbook, "1", "--keywords", "")
    text_file = tmp_path / "added.txt"
    text_file.write_text("The library opens at eight.", encoding="utf-8")
    cli("chunks_edit_text_file", "chunks", "edit", handbook, "2", "--text-file", str(text_file))
    cli("chunks_edit_both", "chunks", "edit", handbook, "1", "--text", "a", "--text-file", str(text_file))
    cli("chunks_edit_missing_file", "chunks", "edit", handbook, "1", "--text-file", str(tmp_path / "absent.txt"))
    cli("chunks_edit_no_chunk", "chunks", "edit", handbook, "999", "--text", "x")
    cli("chunks_edit_bad_index", "chunks", "edit", handbook, "one", "--text", "x")
    cli("chunks_disable_json", "--json", "chunks", "disable", handbook, "1")
    cli("chunks_disable_text", "chunks", "disable", handbook, "0")
    cli("chunks_enable_text", "chunks", "enable", handbook, "0")
    cli("chunks_add_json", "--json", "chunks", "add", handbook, "--text-file", str(text_file), "--keywords", "books")
    cli("chunks_add_text", "chunks", "add", handbook, "--text", "The gym closes at nine.")
    cli("chunks_add_no_text", "chunks", "add", handbook)
    cli("chunks_list_after", "chunks", "list", handbook)
    cli("chunks_history_json", "--json", "chunks", "history", handbook)
    cli("chunks_history_text", "chunks", "history", handbook)
    cli("chunks_history_none", "chunks", "history", shanghai)
    cli("chunks_list_unknown", "--json", "chunks", "list", "0000")

    # curated
    cli("curated_list_empty", "curated", "list", "--kb", "office")
    code, out = cli("curated_add_json", "--json", "curated", "add", "--kb", "office", "--question", "Where do I park?",
                    "--answer", "In the north garage.")
    first = _json(out)["id"]
    cli.name(first, "<curated:1>")
    code, out = cli("curated_add_text", "curated", "add", "--kb", "office", "--question", "午饭几点？",
                    "--answer", "中午十二点到两点。", "--approved-by", "Ana")
    second = out.split()[-1]
    cli.name(second, "<curated:2>")
    cli("curated_list_json", "--json", "curated", "list", "--kb", "office")
    cli("curated_list_text", "curated", "list", "--kb", "office")
    qa = tmp_path / "qa.csv"
    qa.write_text("question,answer\nWhen does the gym close?,At nine.\n,no question\n", encoding="utf-8")
    cli("curated_import_json", "--json", "curated", "import", "--kb", "office", str(qa))
    cli("curated_import_text", "curated", "import", "--kb", "office", str(qa))
    cli("curated_import_missing", "curated", "import", "--kb", "office", str(tmp_path / "absent.csv"))
    cli("curated_export_text", "curated", "export", "--kb", "office")
    cli("curated_export_json", "--json", "curated", "export", "--kb", "office")
    cli("curated_export_file", "curated", "export", "--kb", "office", "-o", str(tmp_path / "out.csv"))
    cli("curated_delete_json", "--json", "curated", "delete", "--kb", "office", first)
    cli("curated_delete_text", "curated", "delete", "--kb", "office", second)
    cli("curated_delete_unknown", "curated", "delete", "--kb", "office", "nope")
    cli("curated_add_unknown_kb", "curated", "add", "--kb", "nope", "--question", "q", "--answer", "a")

    _search_and_doctor(cli)
    _ask_and_compare(cli, tmp_path)

    # assistants
    cli("assistants_list_empty", "assistants", "list")
    cli("assistants_list_empty_json", "--json", "assistants", "list")
    code, out = cli("assistants_create_json", "--json", "assistants", "create", "人事助手", "--kb", "office",
                    "--mode", "strict", "--top-k", "2", "--visibility", "public", "--strict-min-similarity", "0.3",
                    "--refusal-text", "无可奉告。", "--where", "year>=2020", "--share", "", "--description", "HR desk")
    cli.name(_json(out)["id"], "<assistant:1>")
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Answer as the desk.\n{{CONTEXT}}\n{{QUERY}}", encoding="utf-8")
    cli("assistants_create_text", "assistants", "create", "desk", "--prompt-file", str(prompt), "--mode", "normal",
        "--normal-min-similarity", "0.2")
    cli("assistants_create_no_context", "assistants", "create", "bad", "--prompt", "no placeholder")
    cli("assistants_create_both_prompts", "assistants", "create", "bad", "--prompt", "x", "--prompt-file", str(prompt))
    cli("assistants_create_missing_prompt_file", "assistants", "create", "bad", "--prompt-file",
        str(tmp_path / "absent.txt"))
    cli("assistants_create_taken", "--json", "assistants", "create", "desk")
    cli("assistants_create_unknown_kb", "assistants", "create", "other", "--kb", "nope")
    cli("assistants_create_bad_top_k", "assistants", "create", "other", "--top-k", "many")
    cli("assistants_list_json", "--json", "assistants", "list")
    cli("assistants_list_text", "assistants", "list")
    cli("assistants_show_json", "--json", "assistants", "show", "人事助手")
    cli("assistants_show_text", "assistants", "show", "desk")
    cli("assistants_show_unknown", "assistants", "show", "nobody")
    code, out = cli("assistants_update_json", "--json", "assistants", "update", "人事助手", "--rename", "helpdesk",
                    "--clear", "top_k", "--clear", "where", "--kb", "")
    cli("assistants_update_text", "assistants", "update", "desk", "--kb", "office", "--where", "year>=2024",
        "--where", "year<2030", "--share", "", "--visibility", "shared", "--prompt", "Short.\n{{CONTEXT}}")
    cli("assistants_update_bad_clear", "assistants", "update", "desk", "--clear", "mode")
    cli("assistants_update_unknown", "assistants", "update", "nobody", "--top-k", "3")
    cli("assistants_show_after", "--json", "assistants", "show", "desk")
    cli("assistants_delete_json", "--json", "assistants", "delete", "helpdesk")
    cli("assistants_delete_text", "assistants", "delete", "desk")
    cli("assistants_delete_unknown", "assistants", "delete", "desk")

    # chats
    _users(cli, "bob", "carol")
    cli("chats_list_empty", "chats", "list")
    cli("chats_list_empty_json", "--json", "chats", "list")
    chat = _chat(cli, "bob", "Parking", [("user", "Where do I park?\nAnd visitors?"),
                                         ("assistant", "Level two [1].", "strict", [
                                             {"n": 1, "source_name": "handbook.md", "location": "p. 2"},
                                             {"source_name": "上海.md"}], ["A notice."])])
    cli.name(chat, "<chat:parking>")
    other = _chat(cli, "carol", "", [("user", "午饭？"), ("assistant", "十二点。", "", [], [])])
    cli.name(other, "<chat:lunch>")
    cli("chats_list_text", "chats", "list")
    cli("chats_list_json", "--json", "chats", "list")
    cli("chats_list_user", "chats", "list", "--user", "BOB", "--json")
    cli("chats_list_search", "chats", "list", "--search", "visitors")
    cli("chats_list_search_none", "--json", "chats", "list", "--search", "nothing-like-this")
    cli("chats_list_unknown_user", "chats", "list", "--user", "nobody")
    cli("chats_show_json", "--json", "chats", "show", chat)
    cli("chats_show_text", "chats", "show", other)
    cli("chats_show_user", "chats", "show", chat, "--user", "bob")
    cli("chats_show_wrong_user", "chats", "show", chat, "--user", "carol")
    cli("chats_show_unknown", "--json", "chats", "show", "no-such-chat")
    cli("chats_export_text", "chats", "export", chat)
    cli("chats_export_json", "--json", "chats", "export", other)
    cli("chats_export_file", "chats", "export", chat, "-o", str(tmp_path / "chat.md"))
    cli("chats_export_file_json", "--json", "chats", "export", other, "--output", str(tmp_path / "lunch.md"))
    cli("chats_export_file_content", "chats", "export", chat)  # compared with the file below
    assert (tmp_path / "chat.md").read_text(encoding="utf-8") == cli.raw["chats_export_file_content"][2]
    cli("chats_export_bad_folder", "chats", "export", chat, "-o", str(tmp_path / "absent" / "chat.md"))
    cli("chats_export_unknown", "chats", "export", "no-such-chat")

    # jobs (the ingests above ran as jobs; one more queued and never run)
    cli("jobs_list_text", "jobs", "list")
    cli("jobs_list_json", "--json", "jobs", "list")
    cli("jobs_list_active_none", "--json", "jobs", "list", "--active")
    late = tmp_path / "late"
    late.mkdir()
    (late / "late.md").write_text("# Late\n\nArrive by nine.\n", encoding="utf-8")
    queued = _json(cli(None, "--json", "ingest", "--kb", "office", "--detach", str(late / "late.md"))[1])
    waiting = queued["jobs"][0]["id"]
    cli.name(waiting, "<job:queued>")
    finished = [j["id"] for j in _json(cli(None, "--json", "jobs", "list")[1]) if j["state"] == "done"]
    cli.name(finished[0], "<job:done>")
    cli("jobs_list_active", "jobs", "list", "--active")
    cli("jobs_list_active_json", "jobs", "list", "--active", "--json")
    cli("jobs_show_json", "--json", "jobs", "show", finished[0])
    cli("jobs_show_text", "jobs", "show", waiting)
    cli("jobs_show_unknown", "jobs", "show", "nope")
    cli("jobs_wait_done", "jobs", "wait", finished[0])
    cli("jobs_wait_timeout_json", "--json", "jobs", "wait", finished[0], waiting, "--timeout", "0")
    cli("jobs_wait_timeout_text", "jobs", "wait", waiting, "--timeout", "0.1")
    cli("jobs_wait_bad_timeout", "jobs", "wait", waiting, "--timeout", "soon")
    cli("jobs_wait_unknown", "jobs", "wait", "nope", "--timeout", "0")
    cli("jobs_wait_no_ids", "jobs", "wait")
    cli("jobs_cancel_text", "jobs", "cancel", waiting)
    cli("jobs_cancel_done_json", "--json", "jobs", "cancel", finished[0])
    cli("jobs_cancel_unknown", "--json", "jobs", "cancel", "nope")
    cli("jobs_wait_not_all_done", "--json", "jobs", "wait", finished[0], waiting)
    cli("jobs_show_cancelled", "--json", "jobs", "show", waiting)
    cli("jobs_no_verb", "jobs")

    # kb (last: it renames and deletes knowledge bases)
    code, out = cli("kb_create_json", "--json", "kb", "create", "人事", "--description", "HR desk", "--visibility", "public")
    cli.name(_json(out)["id"], "<kb:hr>")
    code, out = cli("kb_create_text", "kb", "create", "archive")
    cli.name(out.strip().rsplit("(", 1)[-1].rstrip(")"), "<kb:archive>")
    cli("kb_create_taken", "kb", "create", "office")
    cli("kb_create_taken_json", "--json", "kb", "create", "archive")
    cli("kb_create_bad_visibility", "kb", "create", "other", "--visibility", "secret")
    cli("kb_create_empty_name", "kb", "create", " ")
    cli("kb_create_no_name", "kb", "create")
    cli("kb_list_json", "--json", "kb", "list")
    cli("kb_list_text", "kb", "list")
    cli("kb_rename_json", "--json", "kb", "rename", "archive", "old-archive")
    cli("kb_rename_text", "kb", "rename", "人事", "人力资源")
    cli("kb_rename_taken", "kb", "rename", "old-archive", "office")
    cli("kb_rename_unknown", "--json", "kb", "rename", "nope", "other")
    cli("kb_rename_no_new_name", "kb", "rename", "office")
    cli("kb_delete_json", "--json", "kb", "delete", "old-archive")
    cli("kb_delete_text", "kb", "delete", "office")
    cli("kb_delete_unknown", "kb", "delete", "office")
    cli("kb_delete_unknown_json", "--json", "kb", "delete", "nope")
    cli("kb_list_after", "kb", "list", "--json")
    cli("kb_no_verb", "kb")
    cli("kb_unknown_verb", "kb", "drop", "x")

    # files (in the knowledge base left above)
    cli("files_list_empty", "files", "list", "--kb", "人力资源")
    assert cli(None, "--json", "ingest", "--kb", "人力资源", str(docs))[0] == 0
    files = {f["name"]: f["id"] for f in _json(cli(None, "--json", "files", "list", "--kb", "人力资源")[1])}
    cli.name(files["handbook.md"], "<file:handbook2>")
    cli.name(files["上海.md"], "<file:shanghai2>")
    cli("files_list_json", "--json", "files", "list", "--kb", "人力资源")
    hr = _json(cli(None, "--json", "kb", "list")[1])[0]["id"]
    cli("files_list_text", "files", "list", "--kb", hr)  # by id
    cli("files_list_all", "files", "list", "--json")
    cli("files_list_status", "files", "list", "--status", "indexed")
    cli("files_list_status_none", "--json", "files", "list", "--kb", "人力资源", "--status", "failed")
    cli("files_list_bad_status", "files", "list", "--status", "done")
    cli("files_list_unknown_kb", "files", "list", "--kb", "nope")
    cli("files_list_unknown_kb_json", "--json", "files", "list", "--kb", "nope")
    cli("files_delete_json", "--json", "files", "delete", files["handbook.md"])
    cli("files_delete_unknown", "files", "delete", "0000")
    cli("files_delete_mixed_json", "--json", "files", "delete", files["上海.md"], files["handbook.md"])
    cli("files_delete_no_ids", "files", "delete")
    cli("files_list_after", "files", "list")
    cli("files_no_verb", "files")

    # settings
    cli("settings_get_key", "settings", "get", "strict.rag_strict_mode")
    cli("settings_get_key_json", "--json", "settings", "get", "chunking.chunk_size")
    cli("settings_get_section", "settings", "get", "chunking")
    cli("settings_get_section_json", "--json", "settings", "get", "chunking")
    cli("settings_get_moved", "settings", "get", "web_search.searxng_query_url")  # today's name: engines.searxng
    cli("settings_get_unknown", "settings", "get", "nope.x")
    cli("settings_get_unknown_json", "--json", "settings", "get", "chunking.nope")
    cli("settings_get_past_a_value", "settings", "get", "strict.rag_strict_mode.x")
    cli("settings_set_bool", "settings", "set", "strict.rag_strict_mode", "true")
    cli("settings_set_number_json", "--json", "settings", "set", "chunking.chunk_size", "600")
    cli("settings_set_bare_string", "settings", "set", "llm.model", "qwen2.5:7b")
    cli("settings_set_quoted_string", "--json", "settings", "set", "llm.model", '"7"')
    cli("settings_set_secret", "settings", "set", "llm.api_key", "sk-secret-value")
    cli("settings_set_secret_json", "--json", "settings", "set", "llm.api_key", "sk-secret-value")
    cli("settings_set_section_json", "--json", "settings", "set", "llm", '{"api_key": "sk-other", "temperature": 0.3}')
    cli("settings_set_invalid", "settings", "set", "chunking.chunk_overlap", "900")
    cli("settings_set_invalid_json", "--json", "settings", "set", "chunking.chunk_size", '"big"')
    cli("settings_set_unknown", "settings", "set", "nope.x", "1")
    cli("settings_set_no_value", "settings", "set", "llm.model")
    cli("settings_get_after", "settings", "get", "strict.rag_strict_mode")
    cli("settings_get_after_json", "--json", "settings", "get", "llm")
    cli("settings_no_verb", "settings")

    # kb sharing (in the knowledge base left above)
    cli("kb_share_text", "kb", "share", "人力资源", "bob")
    cli("kb_share_json", "--json", "kb", "share", "人力资源", "carol", "bob")
    cli("kb_shared_text", "kb", "shared", "人力资源")
    cli("kb_unshare_json", "kb", "unshare", "人力资源", "BOB", "--json")
    cli("kb_unshare_not_shared", "kb", "unshare", "人力资源", "bob")
    cli("kb_unshare_not_shared_json", "--json", "kb", "unshare", "人力资源", "nobody", "carol")
    cli("kb_unshare_text", "kb", "unshare", "人力资源", "carol")
    cli("kb_shared_nobody", "kb", "shared", "人力资源")
    cli("kb_shared_json", "--json", "kb", "shared", "人力资源")
    cli("kb_share_unknown_user", "kb", "share", "人力资源", "nobody")
    cli("kb_share_unknown_kb", "--json", "kb", "share", "nope", "bob")
    cli("kb_shared_unknown_kb", "kb", "shared", "nope")
    cli("kb_share_no_users", "kb", "share", "人力资源")

    # reindex (last of the knowledge-base commands: it runs as a job and moves the collection)
    assert cli(None, "--json", "ingest", "--kb", "人力资源", str(docs))[0] == 0
    cli("reindex_text", "reindex", "--kb", "人力资源")
    cli("reindex_json", "--json", "reindex", "--kb", "人力资源")
    cli("reindex_unknown_kb", "reindex", "--kb", "nope")
    cli("reindex_unknown_kb_json", "--json", "reindex", "--kb", "nope")
    cli("reindex_no_kb", "reindex")
    cli("search_after_reindex", "search", "--kb", "人力资源", "Where do visitors park?")

    _accounts_and_tokens(cli)
    _sources(cli, tmp_path, monkeypatch)

    _gdrive(cli, tmp_path)  # Drive sources and their sync jobs
    _ingest(cli, tmp_path, monkeypatch)  # last: a knowledge base of its own and queued jobs
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        for old in GOLDEN.glob("*.txt"):
            old.unlink()
        for case, text in cli.cases.items():
            (GOLDEN / f"{case}.txt").write_text(text, encoding="utf-8")
        pytest.skip("goldens recorded")
    cases = cli.cases
    recorded = {p.stem for p in GOLDEN.glob("*.txt")}
    assert recorded == set(cases), "cases and goldens differ: record again (RAGDESK_GOLDEN_UPDATE=1)"
    differ = [case for case, text in cases.items() if (GOLDEN / f"{case}.txt").read_text(encoding="utf-8") != text]
    assert not differ, f"{len(differ)} case(s) differ: {', '.join(differ)}\n\n" + "\n\n".join(f"{case}:\n--- golden\n{(GOLDEN / f'{case}.txt').read_text(encoding='utf-8')}"
                                   f"--- now\n{cases[case]}" for case in differ[:3])


def _search_and_doctor(cli: Cli) -> None:
    """search and doctor over the knowledge base 'office' (its field 'year' set on both files)."""
    cli("search_text", "search", "--kb", "office", "Where do visitors park?")
    cli("search_json", "--json", "search", "--kb", "office", "--top-k", "2", "Where do visitors park?")
    cli("search_every_kb_json", "search", "上海出差住宿费", "--mode", "bm25", "--json")
    cli("search_min_score", "search", "--kb", "office", "--mode", "hybrid", "--min-score", "0.05", "parking")
    cli("search_none_above", "search", "--kb", "office", "--min-score", "1", "parking")
    cli("search_none_above_json", "--json", "search", "--kb", "office", "--min-score", "1", "parking")
    cli("search_where", "search", "--kb", "office", "--where", "year>=2024", "--where", "year<2030", "住宿")
    cli("search_where_json", "--json", "search", "--where", "year=2000..2023", "park")
    cli("search_bad_where", "search", "--where", "year", "park")
    cli("search_where_unknown_field", "--json", "search", "--kb", "office", "--where", "colour=red", "park")
    cli("search_unknown_kb", "search", "--kb", "nope", "park")
    cli("search_unknown_kb_json", "--json", "search", "--kb", "office", "--kb", "nope", "park")
    cli("search_bad_top_k", "search", "--top-k", "0", "park")
    cli("search_bad_top_k_json", "--json", "search", "--top-k", "5000", "park")
    cli("search_top_k_not_a_number", "search", "--top-k", "many", "park")
    cli("search_bad_min_score", "search", "--min-score", "2", "park")
    cli("search_bad_min_score_json", "--json", "search", "--min-score", "-0.5", "park")
    cli("search_min_score_not_a_number", "search", "--min-score", "high", "park")
    cli("search_empty_query", "search", "  ", "--kb", "office")
    cli("search_bad_mode", "search", "--mode", "fuzzy", "park")
    cli("search_no_query", "search", "--kb", "office")

    cli("doctor_healthy", "doctor")
    cli("doctor_healthy_json", "--json", "doctor")
    from core.config import RuntimeConfig

    parsed = RuntimeConfig.from_env(None).parsed_dir
    parsed.mkdir(parents=True, exist_ok=True)
    stray = parsed / ("0" * 31 + "1.json")  # parsed text of a file that does not exist
    stray.write_text("{}", encoding="utf-8")
    cli("doctor_unhealthy", "doctor")
    cli("doctor_unhealthy_json", "doctor", "--json")
    cli("doctor_repair_json", "--json", "doctor", "--repair")
    assert not stray.exists()
    stray.write_text("{}", encoding="utf-8")
    cli("doctor_repair_text", "doctor", "--repair")
    cli("doctor_after_repair", "doctor")
    cli("doctor_bad_option", "doctor", "--fix")



def _accounts_and_tokens(cli: Cli) -> None:
    """users and tokens (last: they change accounts). bob (the first account: admin) and carol exist."""
    given = PASSWORD + "\n"
    cli("users_list_json", "--json", "users", "list")
    cli("users_list_text", "users", "list")
    cli("users_create_text", "users", "create", "dave", stdin=given)
    cli("users_create_json", "--json", "users", "create", "erin", "--role", "admin", stdin=given)
    cli("users_create_user_json", "users", "create", "frank", "--role", "user", "--json", stdin=given)
    cli("users_create_no_password", "users", "create", "gina", stdin="")
    cli("users_create_no_password_json", "--json", "users", "create", "gina", stdin="")
    cli("users_create_short_password", "users", "create", "gina", stdin="short\n")
    cli("users_create_taken", "users", "create", "DAVE", stdin=given)
    cli("users_create_slash_in_name", "--json", "users", "create", "a/b", stdin=given)
    cli("users_create_bad_role", "users", "create", "gina", "--role", "owner", stdin=given)
    cli("users_create_no_name", "users", "create", stdin=given)
    cli("users_set_role_text", "users", "set-role", "dave", "admin")
    cli("users_set_role_json", "--json", "users", "set-role", "DAVE", "user")
    cli("users_set_role_bad", "users", "set-role", "dave", "owner")
    cli("users_set_role_unknown", "users", "set-role", "nobody", "user")
    cli("users_set_role_unknown_json", "--json", "users", "set-role", "nobody", "user")
    cli("users_set_role_no_role", "users", "set-role", "dave")
    cli("users_disable_text", "users", "disable", "dave")
    cli("users_disable_json", "--json", "users", "disable", "frank")
    cli("users_enable_text", "users", "enable", "DAVE")
    cli("users_enable_json", "users", "enable", "frank", "--json")
    cli("users_disable_unknown", "users", "disable", "nobody")
    cli("users_enable_no_name", "users", "enable")
    assert cli(None, "users", "set-role", "erin", "user")[0] == 0
    cli("users_set_role_last_admin", "users", "set-role", "bob", "user")
    cli("users_disable_last_admin", "--json", "users", "disable", "bob")
    cli("users_reset_password_text", "users", "reset-password", "dave", stdin="another horse battery\n")
    cli("users_reset_password_json", "--json", "users", "reset-password", "frank", stdin="another horse battery\n")
    cli("users_reset_password_no_password", "users", "reset-password", "dave", stdin="")
    cli("users_reset_password_short", "--json", "users", "reset-password", "dave", stdin="short\n")
    cli("users_reset_password_unknown", "users", "reset-password", "nobody", stdin=given)
    cli("users_sign_out_text", "users", "sign-out", "dave")
    cli("users_sign_out_json", "--json", "users", "sign-out", "carol")
    cli("users_sign_out_unknown", "users", "sign-out", "nobody")
    cli("users_list_after", "users", "list")
    cli("users_list_after_json", "--json", "users", "list")
    cli("users_no_verb", "users")
    cli("users_unknown_verb", "users", "delete", "dave")

    code, out = cli("tokens_create_json", "--json", "tokens", "create", "--user", "dave", "--label", "wiki bot",
                    "--expires-days", "30")
    made = _json(out)
    cli.name(made["token"], "<token:dave>")
    cli.name(made["prefix"], "<prefix:dave>")
    cli.name(made["id"], "<token-id:dave>")
    code, out = cli("tokens_create_text", "tokens", "create", "--user", "carol")
    carol = out.splitlines()[0]
    cli.name(carol, "<token:carol>")
    cli.name(carol[:9], "<prefix:carol>")
    ids = {t["user"]: t["id"] for t in _json(cli(None, "--json", "tokens", "list")[1])}
    cli.name(ids["carol"], "<token-id:carol>")
    code, out = cli("tokens_create_text_label", "tokens", "create", "--user", "BOB", "--label", "ci", "--expires-days", "1")
    bob = out.splitlines()[0]
    cli.name(bob, "<token:bob>")
    cli.name(bob[:9], "<prefix:bob>")
    ids = {t["user"]: t["id"] for t in _json(cli(None, "--json", "tokens", "list")[1])}
    cli.name(ids["bob"], "<token-id:bob>")
    cli("tokens_create_unknown_user", "tokens", "create", "--user", "nobody")
    cli("tokens_create_unknown_user_json", "--json", "tokens", "create", "--user", "nobody")
    cli("tokens_create_bad_expiry", "tokens", "create", "--user", "dave", "--expires-days", "0")
    cli("tokens_create_expiry_not_a_number", "tokens", "create", "--user", "dave", "--expires-days", "soon")
    cli("tokens_create_no_user", "tokens", "create")
    assert cli(None, "users", "disable", "frank")[0] == 0
    cli("tokens_create_disabled_user", "tokens", "create", "--user", "frank")
    cli("tokens_list_json", "--json", "tokens", "list")
    cli("tokens_list_text", "tokens", "list")
    cli("tokens_list_user", "tokens", "list", "--user", "dave")
    cli("tokens_list_user_json", "tokens", "list", "--user", "Carol", "--json")
    cli("tokens_list_user_none", "tokens", "list", "--user", "erin")
    cli("tokens_list_user_none_json", "--json", "tokens", "list", "--user", "erin")
    cli("tokens_list_unknown_user", "tokens", "list", "--user", "nobody")
    cli("tokens_revoke_json", "--json", "tokens", "revoke", made["id"])
    cli("tokens_revoke_text", "tokens", "revoke", ids["carol"])
    cli("tokens_revoke_unknown", "tokens", "revoke", made["id"])
    cli("tokens_revoke_unknown_json", "--json", "tokens", "revoke", "nope")
    cli("tokens_revoke_no_id", "tokens", "revoke")
    cli("tokens_list_after", "tokens", "list")
    cli("tokens_list_after_json", "--json", "tokens", "list")
    assert cli(None, "tokens", "revoke", ids["bob"])[0] == 0
    cli("tokens_list_none", "tokens", "list")
    cli("tokens_list_none_json", "--json", "tokens", "list")
    cli("tokens_no_verb", "tokens")
    cli("tokens_unknown_verb", "tokens", "show")
    printed = "".join(out + err for _, _, out, err in cli.raw.values())
    assert PASSWORD not in printed and "another horse battery" not in printed


def _sources(cli: Cli, tmp_path: Path, monkeypatch) -> None:
    """sources (last: they add a knowledge base of their own and sync jobs): web pages, a server
    folder, a WebDAV folder and a DingTalk knowledge base, each from a local server on 127.0.0.1;
    the secrets from standard input or a file, never from the command line, and never printed."""
    import json

    from tests.sources.dingtalk_server import APP_KEY, APP_SECRET, OPERATOR, WORKSPACE, dingtalk_server
    from tests.sources.webdav_server import PASSWORD as DAV_PASSWORD, USER, webdav_server
    from tests.websearch.fake_engines import fake_engines, html_page

    cli("sources_list_empty", "sources", "list")
    cli("sources_list_empty_json", "--json", "sources", "list")
    cli("sources_log_empty", "sources", "log")
    cli("sources_log_empty_json", "--json", "sources", "log")
    cli("sources_no_verb", "sources")
    cli("sources_unknown_verb", "sources", "remove", "x")
    assert cli(None, "kb", "create", "synced")[0] == 0
    share = tmp_path / "share"
    (share / "team").mkdir(parents=True)
    (share / "team" / "plan.md").write_text("# Plan\n\nShip the heron release in May.\n", encoding="utf-8")
    (share / "team" / "计划.md").write_text("# 计划\n\n五月发布。\n", encoding="utf-8")
    cli("sources_add_folder_off", "sources", "add-folder", "--kb", "synced", str(share / "team"))
    dav_root = tmp_path / "dav"
    dav_root.mkdir()
    (dav_root / "menu.md").write_text("Thursday is dumpling day.\n", encoding="utf-8")
    password_file, secret_file = tmp_path / "pw.txt", tmp_path / "secret.txt"
    password_file.write_text(DAV_PASSWORD + "\n", encoding="utf-8")
    secret_file.write_text(APP_SECRET + "\n", encoding="utf-8")
    wrong_file = tmp_path / "wrong.txt"
    wrong_file.write_text("wrong-Secret-0\n", encoding="utf-8")
    with fake_engines() as web, webdav_server(dav_root) as dav, dingtalk_server() as ding, \
            monkeypatch.context() as env:
        cli.name(web.base, "<web>")
        cli.name(dav.base, "<dav>")
        cli.name(ding.base, "<dingtalk>")
        env.setenv("RAGDESK_PARSING__URL_ALLOW_HOSTS", '["127.0.0.1"]')
        env.setenv("RAGDESK_SOURCES__KINDS__FOLDER__ALLOWED_ROOTS", json.dumps([str(share)]))
        env.setenv("RAGDESK_SOURCES__KINDS__DINGTALK__BASE_URL", ding.base)
        env.chdir(tmp_path)
        egret = web.page("/pages/egret", html_page("Egret", "Egrets nest by the lake."))
        heron = web.page("/pages/heron", html_page("Heron", "Herons fish at dawn."))
        ding.add("d1", "Menu", text="Thursday is dumpling day.")

        # add-web
        code, out = cli("sources_add_web_json", "--json", "sources", "add-web", "--kb", "synced", egret)
        web_source = _json(out)["source_id"]
        cli.name(web_source, "<source:web>")
        cli.name(_json(out)["log_id"], "<log:web-import>")
        cli("sources_add_web_text", "sources", "add-web", "--kb", "synced", "--no-watch", heron)
        cli("sources_add_web_missing_page", "--json", "sources", "add-web", "--kb", "synced", web.base + "/pages/none")
        cli("sources_add_web_unknown_kb", "sources", "add-web", "--kb", "nope", egret)
        cli("sources_add_web_no_url", "sources", "add-web", "--kb", "synced")
        cli("sources_add_web_no_kb", "sources", "add-web", egret)

        # add-folder (a relative path is made absolute where the command runs)
        cli("sources_add_folder_json", "--json", "sources", "add-folder", "--kb", "synced", "share/team")
        cli("sources_add_folder_again_text", "sources", "add-folder", "--kb", "synced", "--no-watch", str(share / "team"))
        cli("sources_add_folder_outside", "sources", "add-folder", "--kb", "synced", str(tmp_path))
        cli("sources_add_folder_outside_json", "--json", "sources", "add-folder", "--kb", "synced", str(dav_root))
        cli("sources_add_folder_unknown_kb", "sources", "add-folder", "--kb", "nope", str(share / "team"))

        # add-webdav: the password from standard input or --password-file, never an argument
        cli("sources_add_webdav_stdin_json", "--json", "sources", "add-webdav", "--kb", "synced", "--username", USER,
            dav.folder, stdin=DAV_PASSWORD + "\n")
        cli("sources_add_webdav_file_text", "sources", "add-webdav", "--kb", "synced", "--username", USER,
            "--password-file", str(password_file), "--no-watch", dav.folder)
        cli("sources_add_webdav_wrong_password", "sources", "add-webdav", "--kb", "synced", "--username", USER,
            "--password-file", str(wrong_file), dav.folder)
        cli("sources_add_webdav_no_password", "sources", "add-webdav", "--kb", "synced", "--username", USER,
            dav.folder, stdin="")
        cli("sources_add_webdav_empty_password_json", "--json", "sources", "add-webdav", "--kb", "synced",
            "--username", USER, dav.folder, stdin="\n")
        cli("sources_add_webdav_missing_file", "sources", "add-webdav", "--kb", "synced", "--username", USER,
            "--password-file", str(tmp_path / "absent.txt"), dav.folder)
        cli("sources_add_webdav_password_dash", "--json", "sources", "add-webdav", "--kb", "synced", "--username",
            USER, "--password-file", "-", dav.folder, stdin=DAV_PASSWORD + "\n")
        # refused, never echoed (argparse would read --password as --password-file abbreviated)
        cli("sources_add_webdav_password_argument", "sources", "add-webdav", "--kb", "synced", "--username", USER,
            "--password", "typed-Pw-1", dav.folder)
        cli("sources_add_webdav_no_username", "sources", "add-webdav", "--kb", "synced", dav.folder,
            stdin=DAV_PASSWORD + "\n")

        # dingtalk-workspaces and add-dingtalk: the AppSecret likewise
        dingtalk = ("--app-key", APP_KEY, "--operator", OPERATOR)
        cli("sources_dingtalk_workspaces_json", "--json", "sources", "dingtalk-workspaces", *dingtalk,
            "--secret-file", str(secret_file))
        cli("sources_dingtalk_workspaces_text", "sources", "dingtalk-workspaces", *dingtalk, stdin=APP_SECRET + "\n")
        cli("sources_dingtalk_workspaces_wrong_secret", "sources", "dingtalk-workspaces", *dingtalk,
            "--secret-file", str(wrong_file))
        cli("sources_dingtalk_workspaces_secret_argument", "sources", "dingtalk-workspaces", *dingtalk,
            "--app-secret", APP_SECRET)
        cli("sources_add_dingtalk_json", "--json", "sources", "add-dingtalk", "--kb", "synced", *dingtalk,
            "--workspace", WORKSPACE, stdin=APP_SECRET + "\n")
        # a folder added after the first import: its document is new to the knowledge base (a document
        # exported again as docx differs by its zip's times, so a second import of one would be
        # 'duplicate' or 'added' by the second it ran in)
        ding.add("f1", "Policies", folder=True)
        ding.add("d2", "Travel", "f1", text="Trains are booked two weeks ahead.")
        cli("sources_add_dingtalk_text", "sources", "add-dingtalk", "--kb", "synced", *dingtalk, "--workspace",
            WORKSPACE, "--folder", "f1", "--no-watch", "--secret-file", str(secret_file))
        cli("sources_add_dingtalk_secret_argument", "--json", "sources", "add-dingtalk", "--kb", "synced", *dingtalk,
            "--workspace", WORKSPACE, "--app-secret", APP_SECRET)
        cli("sources_add_dingtalk_no_secret", "sources", "add-dingtalk", "--kb", "synced", *dingtalk,
            "--workspace", WORKSPACE, stdin="")
        cli("sources_add_dingtalk_missing_file_json", "--json", "sources", "add-dingtalk", "--kb", "synced",
            *dingtalk, "--workspace", WORKSPACE, "--secret-file", str(tmp_path / "absent.txt"))
        cli("sources_add_dingtalk_no_workspace", "sources", "add-dingtalk", "--kb", "synced", *dingtalk,
            stdin=APP_SECRET + "\n")

        # list, sync, log
        listed = _json(cli("sources_list_json", "--json", "sources", "list")[1])
        for n, row in enumerate(listed, 1):
            if row["id"] != web_source:
                cli.name(row["id"], f"<source:{n}:{row['kind']}>")
        cli("sources_list_text", "sources", "list")
        (share / "team" / "plan.md").write_text("# Plan\n\nShip the egret release in June.\n", encoding="utf-8")
        folder_source = next(r["id"] for r in listed if r["kind"] == "folder")
        cli("sources_sync_json", "--json", "sources", "sync", folder_source)
        web.page("/pages/egret", html_page("Egret", "Egrets nest by the river now."))
        cli("sources_sync_text", "sources", "sync", web_source)
        cli("sources_sync_unknown", "sources", "sync", "no-such-source")
        cli("sources_sync_unknown_json", "--json", "sources", "sync", "no-such-source")
        cli("sources_sync_no_id", "sources", "sync")
        cli("sources_log_text", "sources", "log")
        cli("sources_log_json", "--json", "sources", "log", "--limit", "3")
        cli("sources_log_one_source", "sources", "log", web_source)
        cli("sources_log_one_source_json", "sources", "log", folder_source, "--json", "--limit", "1")
        cli("sources_log_unknown_source", "sources", "log", "no-such-source")
        cli("sources_log_bad_limit", "sources", "log", "--limit", "many")
    printed = "".join(out + err for _, _, out, err in cli.raw.values())
    for secret in (DAV_PASSWORD, APP_SECRET, "wrong-Secret-0", "typed-Pw-1"):
        assert secret not in printed


def _ingest(cli: Cli, tmp_path: Path, monkeypatch) -> None:
    """ingest: a folder, a duplicate, a corrupt file among good ones, a URL from a local server on
    127.0.0.1, refusals, and --detach (files stored, jobs queued for workers that never run here)."""
    from tests.parsers.http_fixtures import local_server

    assert cli(None, "kb", "create", "ingested")[0] == 0
    folder = tmp_path / "ingest"
    folder.mkdir()
    (folder / "alpha.md").write_text("# Alpha\n\nThe alpha office opens at eight.\n", encoding="utf-8")
    (folder / "贝塔.md").write_text("# 贝塔\n\n贝塔办公室九点开门。\n", encoding="utf-8")
    cli("ingest_folder_text", "ingest", "--kb", "ingested", str(folder))
    cli("ingest_duplicate_json", "--json", "ingest", "--kb", "ingested", str(folder / "alpha.md"))
    cli("ingest_duplicate_text", "ingest", "--kb", "ingested", str(folder))
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "gamma.md").write_text("# Gamma\n\nGamma parks in the north lot.\n", encoding="utf-8")
    (mixed / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf at all")
    (mixed / "delta.md").write_text("# Delta\n\nDelta eats at noon.\n", encoding="utf-8")
    cli("ingest_corrupt_text", "ingest", "--kb", "ingested", str(mixed))
    (mixed / "gamma.md").write_text("# Gamma\n\nGamma parks in the south lot now.\n", encoding="utf-8")
    (mixed / "delta.md").unlink()
    cli("ingest_corrupt_json", "--json", "ingest", "--kb", "ingested", str(mixed))
    cli("ingest_unknown_kb", "ingest", "--kb", "nope", str(folder))
    cli("ingest_unknown_kb_json", "--json", "ingest", "--kb", "nope", str(folder))
    cli("ingest_missing_path", "ingest", "--kb", "ingested", str(tmp_path / "absent.md"))
    cli("ingest_missing_path_json", "--json", "ingest", "--kb", "ingested", str(tmp_path / "absent.md"))
    cli("ingest_no_kb", "ingest", str(folder))
    cli("ingest_no_paths", "ingest", "--kb", "ingested")
    with local_server() as web, monkeypatch.context() as env:
        env.setenv("RAGDESK_PARSING__URL_ALLOW_HOSTS", '["127.0.0.1"]')
        web.serve("/notes.html", b"<html><head><title>Notes</title></head><body><p>Epsilon meets on Fridays.</p>"
                  b"</body></html>", "text/html; charset=utf-8")
        page, missing = web.url("/notes.html"), web.url("/gone.html")
        cli.name(page.rsplit("/", 1)[0], "<web>")
        cli("ingest_url_text", "ingest", "--kb", "ingested", page)
        cli("ingest_url_missing_json", "--json", "ingest", "--kb", "ingested", missing)
    late = tmp_path / "ingest_late"
    late.mkdir()
    (late / "zeta.md").write_text("# Zeta\n\nZeta closes at six.\n", encoding="utf-8")
    (late / "eta.md").write_text("# Eta\n\nEta closes at five.\n", encoding="utf-8")
    cli("ingest_detach_text", "ingest", "--kb", "ingested", "--detach", str(late / "zeta.md"))
    cli("ingest_detach_json", "--json", "ingest", "--kb", "ingested", "--detach", str(late / "eta.md"),
        str(tmp_path / "absent.md"))
    cli("ingest_detach_unknown_kb", "ingest", "--kb", "nope", "--detach", str(late / "zeta.md"))


def _users(cli: Cli, *names: str) -> None:
    """Accounts made as the dashboard's sign-up page makes them (the first one is the admin)."""
    from core.accounts import users
    from core.config import RuntimeConfig
    from core.db.database import Database

    db = Database(RuntimeConfig.from_env(None).database_url)
    try:
        for name in names:
            users.sign_up(db, name, PASSWORD)
    finally:
        db.dispose()


def _chat(cli: Cli, owner: str, title: str, turns: list[tuple]) -> str:
    """A saved chat of ``owner`` with these turns (role, content[, mode, citations, notices]), as
    answering stores them."""
    from core.accounts.users import actor_of, list_users
    from core.chats import store
    from core.config import RuntimeConfig
    from core.db.database import Database

    db = Database(RuntimeConfig.from_env(None).database_url)
    try:
        actor = actor_of(next(u for u in list_users(db, SYSTEM_ACTOR) if u.name == owner))
        chat = store.create_chat(db, actor, title)
        for role, content, *rest in turns:
            mode, citations, notices = rest or ("", [], [])
            store.add_message(db, chat.id, role, content, mode=mode, citations=citations, notices=notices,
                              hit=bool(citations) if role == "assistant" else None,
                              llm_called=False if role == "assistant" else None)
    finally:
        db.dispose()
    return chat.id


def _ask_and_compare(cli: Cli, tmp_path: Path) -> None:
    """ask and compare over the knowledge base 'office' with the default answerer (extractive, no
    model): text and JSON, normal and strict, no hit, --where, an assistant, refusals, compare of
    one question and of a batch with expected answers, --report."""
    q = "Where do visitors park?"
    cli("ask_text", "ask", "--kb", "office", q)
    cli("ask_json", "--json", "ask", "--kb", "office", q)
    cli("ask_strict_text", "ask", "--kb", "office", "--mode", "strict", q)
    cli("ask_strict_json", "ask", "--mode", "strict", "--kb", "office", q, "--json")
    cli("ask_strict_hit", "ask", "--mode", "strict", "上海出差住宿费每晚不超过多少？")
    cli("ask_strict_hit_json", "--json", "ask", "--mode", "strict", "--kb", "office", "上海出差住宿费每晚不超过多少？")
    cli("ask_strict_no_hit", "ask", "--mode", "strict", "今天天气怎么样？")
    cli("ask_strict_no_hit_json", "--json", "ask", "--mode", "strict", "今天天气怎么样？")
    cli("ask_where_json", "--json", "ask", "--kb", "office", "--where", "year>=2020", "--where", "year<2030", q)
    cli("ask_bad_where", "ask", "--where", "year", q)
    cli("ask_unknown_kb", "ask", "--kb", "nope", q)
    cli("ask_unknown_kb_json", "--json", "ask", "--kb", "office", "--kb", "nope", q)
    cli("ask_unknown_chat", "ask", "--chat", "no-such-chat", q)
    cli("ask_empty_question", "ask", "--kb", "office", "   ")
    cli("ask_bad_mode", "ask", "--mode", "fuzzy", q)
    cli("ask_no_question", "ask", "--kb", "office")
    code, out = cli(None, "--json", "assistants", "create", "parking-desk", "--kb", "office", "--mode", "strict")
    assert code == 0
    cli.name(_json(out)["id"], "<assistant:parking>")
    cli("ask_assistant_text", "ask", "--assistant", "parking-desk", q)
    cli("ask_assistant_json", "--json", "ask", "--assistant", "parking-desk", q)
    cli("ask_assistant_with_kb", "ask", "--assistant", "parking-desk", "--kb", "office", q)
    cli("ask_assistant_with_mode_json", "--json", "ask", "--assistant", "parking-desk", "--mode", "normal", q)
    cli("ask_assistant_with_where", "ask", "--assistant", "parking-desk", "--where", "year>=2020", q)
    cli("ask_assistant_unknown", "ask", "--assistant", "nobody", q)
    assert cli(None, "assistants", "delete", "parking-desk")[0] == 0

    cli("compare_text", "compare", "--kb", "office", q)
    cli("compare_json", "--json", "compare", "--kb", "office", q)
    cli("compare_where", "compare", "--where", "year>=2020", "--kb", "office", q)
    cli("compare_unknown_kb", "compare", "--kb", "nope", q)
    cli("compare_unknown_kb_json", "--json", "compare", "--kb", "nope", q)
    batch_csv = tmp_path / "ab.csv"
    batch_csv.write_text(f"question,expected\n{q},north garage\n今天天气怎么样？,-\nWhen is lunch?,\n",
                         encoding="utf-8")
    batch_jsonl = tmp_path / "ab.jsonl"
    batch_jsonl.write_text(f'{{"question": "{q}", "expected": "level two"}}\n"A lost badge?"\n', encoding="utf-8")
    cli("compare_batch_text", "compare", "--kb", "office", "--batch", str(batch_csv))
    cli("compare_batch_json", "--json", "compare", "--kb", "office", "--batch", str(batch_jsonl))
    report = tmp_path / "ab.html"
    cli("compare_batch_report", "compare", "--kb", "office", "--batch", str(batch_csv), "--report", str(report))
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "Questions: 3" in page
    assert all(asked in page for asked in (q, "今天天气怎么样？", "When is lunch?", "north garage"))
    report.unlink()
    cli("compare_batch_report_json", "--json", "compare", "--batch", str(batch_jsonl), "--report", str(report))
    assert "A lost badge?" in report.read_text(encoding="utf-8")
    cli("compare_report_one_question", "compare", "--kb", "office", q, "--report", str(report))
    assert q in report.read_text(encoding="utf-8")
    cli("compare_report_bad_folder", "compare", "--batch", str(batch_csv), "--report",
        str(tmp_path / "absent" / "ab.html"))
    empty = tmp_path / "empty.csv"
    empty.write_text("question\n", encoding="utf-8")
    cli("compare_batch_empty", "compare", "--batch", str(empty))
    cli("compare_batch_missing", "compare", "--batch", str(tmp_path / "absent.csv"))
    cli("compare_question_and_batch", "compare", "--batch", str(batch_csv), q)
    cli("compare_no_question", "compare", "--kb", "office")
    cli("compare_empty_question", "--json", "compare", "  ")


def _gdrive(cli: Cli, tmp_path: Path) -> None:
    """gdrive against the Drive stand-in (tests/fakes/drive_server.py, on 127.0.0.1): not set up, not
    connected, the refresh token from standard input or a file (never the command line, never
    printed), browse, import into a knowledge base, sync (by hand and the scheduler's pass), disconnect."""
    from tests.fakes.drive_server import DOC, FakeDrive
    from tests.gdrive.conftest import OPEN_FAKE_DRIVE_ENV

    with FakeDrive(max_page=2) as drive, pytest.MonkeyPatch.context() as env:
        cli.name(drive.url, "<drive>")
        cli("gdrive_status_not_set_up", "gdrive", "status")
        cli("gdrive_status_not_set_up_json", "--json", "gdrive", "status")
        token = drive.issue_refresh_token("alice")
        cli.name(token, "<refresh-token>")  # the one typed on the command line below (refused)
        cli("gdrive_connect_not_set_up", "gdrive", "connect", stdin=token + "\n")
        for key, value in {**{f"RAGDESK_GDRIVE__{k.upper()}": str(v) for k, v in drive.settings().items()},
                           **OPEN_FAKE_DRIVE_ENV}.items():
            env.setenv(key, value)
        cli("gdrive_status_not_connected", "gdrive", "status")
        cli("gdrive_status_not_connected_json", "--json", "gdrive", "status")
        cli("gdrive_ls_not_connected", "gdrive", "ls")
        cli("gdrive_ls_not_connected_json", "--json", "gdrive", "ls")
        cli("gdrive_sync_not_connected", "gdrive", "sync")
        cli("gdrive_disconnect_not_connected", "gdrive", "disconnect")

        # connect: the refresh token from standard input or --refresh-token-file, never an argument
        cli("gdrive_connect_token_argument", "gdrive", "connect", "--refresh-token", token)
        cli("gdrive_connect_token_argument_json", "--json", "gdrive", "connect", "--refresh-token", token)
        cli("gdrive_connect_no_token", "gdrive", "connect", stdin="")
        cli("gdrive_connect_blank_token_json", "--json", "gdrive", "connect", stdin="  \n")
        cli("gdrive_connect_missing_file", "gdrive", "connect", "--refresh-token-file", str(tmp_path / "absent.txt"))
        wrong = tmp_path / "wrong-token.txt"
        wrong.write_text("1//refresh-not-issued\n", encoding="utf-8")
        cli("gdrive_connect_refused", "gdrive", "connect", "--refresh-token-file", str(wrong))
        cli("gdrive_connect_stdin_json", "--json", "gdrive", "connect", stdin=token + "\n")
        secret = tmp_path / "token.txt"
        secret.write_text(drive.issue_refresh_token("alice") + "\n", encoding="utf-8")
        cli("gdrive_connect_file_text", "gdrive", "connect", "--refresh-token-file", str(secret))
        cli("gdrive_connect_dash_text", "gdrive", "connect", "--refresh-token-file", "-",
            stdin=drive.issue_refresh_token("alice") + "\n")
        cli("gdrive_status_connected", "gdrive", "status")
        cli("gdrive_status_connected_json", "--json", "gdrive", "status")

        # ls
        team = drive.folder("Team")
        drive.add("Plan", DOC, team, exports={"text/markdown": b"# Plan\n\nShip the heron release in May."})
        drive.add("Notes.txt", "text/plain", team, content=b"egret notes")
        memo = drive.add("Memo.txt", "text/plain", "root", content=b"The canteen opens at noon.")
        drive.add("Shared.txt", "text/plain", "", content=b"shared with alice", shared_with_me=True)
        drive.shared_drive("Projects")
        cli("gdrive_ls_json", "--json", "gdrive", "ls")
        cli("gdrive_ls_text", "gdrive", "ls")
        cli("gdrive_ls_folder", "gdrive", "ls", team)
        cli("gdrive_ls_folder_json", "gdrive", "ls", team, "--json")
        cli("gdrive_ls_query", "gdrive", "ls", "--query", "plan")
        cli("gdrive_ls_query_none_json", "--json", "gdrive", "ls", "--query", "nothing-like-this")
        cli("gdrive_ls_shared_with_me", "gdrive", "ls", "shared-with-me")
        cli("gdrive_ls_shared_drives_json", "--json", "gdrive", "ls", "shared-drives")
        cli("gdrive_ls_unknown_folder", "gdrive", "ls", "no-such-folder")

        # import
        assert cli(None, "kb", "create", "drive")[0] == 0
        cli.name(next(k["id"] for k in _json(cli(None, "--json", "kb", "list")[1]) if k["name"] == "drive"), "<kb:drive>")
        code, out = cli("gdrive_import_json", "--json", "gdrive", "import", "--kb", "drive", "--watch", team)
        cli.name(_json(out)["source_id"], "<source:team>")
        code, out = cli("gdrive_import_text", "gdrive", "import", "--kb", "drive", memo)
        cli("gdrive_import_unknown_kb", "gdrive", "import", "--kb", "nope", memo)
        cli("gdrive_import_unknown_kb_json", "--json", "gdrive", "import", "--kb", "nope", memo)
        cli("gdrive_import_unknown_id_json", "--json", "gdrive", "import", "--kb", "drive", "no-such-file")
        cli("gdrive_import_no_ids", "gdrive", "import", "--kb", "drive")
        cli("gdrive_import_no_kb", "gdrive", "import", memo)

        # sync: by hand, then the scheduler's pass (--due)
        drive.add("Agenda.txt", "text/plain", team, content=b"heron agenda")
        cli("gdrive_sync_json", "--json", "gdrive", "sync")
        cli("gdrive_sync_text", "gdrive", "sync", "--kb", "drive")
        cli("gdrive_sync_unknown_kb", "gdrive", "sync", "--kb", "nope")
        big = drive.add("Big", DOC, "root", exports={"text/markdown": b"# Big"})
        drive.files[big].export_too_large = True  # Google refuses to export it: the item fails, exit 1
        cli("gdrive_import_failed_text", "gdrive", "import", "--kb", "drive", big)
        cli("gdrive_sync_failed_text", "gdrive", "sync")
        cli("gdrive_sync_due_off", "gdrive", "sync", "--due")
        env.setenv("RAGDESK_GDRIVE__SYNC_INTERVAL_MINUTES", "60")
        cli("gdrive_sync_due_none_json", "--json", "gdrive", "sync", "--due")
        _back_date_drive_sources(hours=2)
        drive.add("Minutes.txt", "text/plain", team, content=b"egret minutes")
        cli("gdrive_sync_due_json", "--json", "gdrive", "sync", "--due")
        cli("gdrive_status_sources", "gdrive", "status")
        cli("gdrive_status_sources_json", "--json", "gdrive", "status")

        # disconnect
        cli("gdrive_disconnect_json", "--json", "gdrive", "disconnect")
        cli("gdrive_status_after_disconnect", "gdrive", "status")
        cli("gdrive_ls_after_disconnect", "gdrive", "ls")
        cli("gdrive_sync_after_disconnect_json", "--json", "gdrive", "sync")
        cli("gdrive_connect_again_text", "gdrive", "connect", stdin=drive.issue_refresh_token("alice") + "\n")
        drive.revoke_account("alice")  # Google no longer answers the revocation for it
        cli("gdrive_disconnect_text", "gdrive", "disconnect")
        cli("gdrive_no_verb", "gdrive")
        cli("gdrive_unknown_verb", "gdrive", "upload", "x")
        printed = "".join(out + err for _, _, out, err in cli.raw.values())
        assert "1//refresh-" not in printed  # no refresh token is ever printed (the refused one neither)


def _back_date_drive_sources(hours: int) -> None:
    """Every Drive source's last sync moved ``hours`` back (the schedule sees them due)."""
    from datetime import timedelta

    from sqlmodel import select

    from core.config import RuntimeConfig
    from core.db.database import Database
    from core.sources.models import SyncedSource

    db = Database(RuntimeConfig.from_env(None).database_url)
    try:
        with db.write() as s:
            for row in s.exec(select(SyncedSource).where(SyncedSource.kind == "gdrive")):
                if row.last_sync_at is not None:
                    row.last_sync_at -= timedelta(hours=hours)
                    s.add(row)
    finally:
        db.dispose()
