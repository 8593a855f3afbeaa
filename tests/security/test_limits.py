"""Threat: bad or hostile input — a file name that is not UTF-8, a huge upload, a question of a
million characters, forty URLs in one message, a document that explodes into chunks, look-alike
names, escape sequences aimed at the admin's terminal — makes the service crash, stall, keep
what it refused, or lets an impostor's name be picked. Each limit is a test here."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.db.models import Job
from core.errors import InvalidInput
from core.ingest.jobs import HOST
from core.ingest.service import Upload
from core.names import clean_name, clean_user_name, printable, user_name_key
from core.types import SYSTEM_ACTOR
from tests.cli.test_cli import run_cli
from tests.engine.conftest import HANDBOOK_MD, make_engine, md
from tests.parsers.http_fixtures import local_server


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    e.create_kb(SYSTEM_ACTOR, "kb")
    yield e
    e.close()


def _blobs(engine, data_dir: Path) -> list[str]:
    """The SHA-256 of every kept original: files, and the small ones kept as database rows."""
    originals_as_rows, _ = engine._blobs.stored_rows()
    return sorted([p.name for p in (data_dir / "files").rglob("*") if p.is_file()] + list(originals_as_rows))


def _statuses(engine) -> dict[str, str]:
    return {f.name: f.status for f in engine.list_files(SYSTEM_ACTOR)}


def test_a_non_utf8_file_name_fails_alone_in_a_folder_ingest(engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text(HANDBOOK_MD, encoding="utf-8")
    with open(os.path.join(os.fsencode(folder), b"bad-\xff\xfe-name.md"), "wb") as out:
        out.write(b"# Bad name\n\nThe content itself is fine.\n")
    results = engine.ingest_paths(SYSTEM_ACTOR, "kb", [folder])
    by_status = {r.status: r for r in results}
    assert by_status["indexed"].name == "good.md"
    assert "not valid UTF-8" in by_status["failed"].error and "\ufffd" in by_status["failed"].name
    assert "processing" not in _statuses(engine).values()


def test_the_upload_cap_is_checked_before_reading_or_storing(engine, data_dir, tmp_path):
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_upload_mb": 1}})
    [refused] = engine.ingest(SYSTEM_ACTOR, "kb", [Upload("big.md", b"# big\n\n" + b"x" * (1024 * 1024 + 10))])
    assert refused.status == "failed" and "max_upload_mb" in refused.error
    assert _blobs(engine, data_dir) == []  # the refused original is not kept
    sparse = tmp_path / "huge.md"
    with open(sparse, "wb") as out:
        out.truncate(4 * 1024 ** 3)  # 4 GB on paper, no disk used: reading it would take minutes
    started = time.perf_counter()
    [from_disk] = engine.ingest_paths(SYSTEM_ACTOR, "kb", [sparse])
    assert time.perf_counter() - started < 5 and "4096.0 MB" in from_disk.error and "max_upload_mb" in from_disk.error


def test_a_failed_files_original_is_kept_only_for_retry_and_counted(engine, data_dir):
    [bad] = engine.ingest(SYSTEM_ACTOR, "kb", [Upload("broken.docx", b"PK\x03\x04 this is not a zip at all")])
    assert bad.status == "failed"
    [kept] = _blobs(engine, data_dir)  # Retry sends it again
    report = engine.doctor(SYSTEM_ACTOR)
    assert report.healthy and report.retry_originals == [kept]
    engine.delete_files(SYSTEM_ACTOR, [bad.file_id])
    assert _blobs(engine, data_dir) == []  # the failed file gone: its original goes too
    [good] = engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD)])
    assert good.status == "indexed" and len(_blobs(engine, data_dir)) == 1
    report = engine.doctor(SYSTEM_ACTOR)
    assert report.healthy and report.retry_originals == []


def test_jobs_of_a_dead_process_are_marked_interrupted_at_start_up(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with make_engine(data_dir) as engine:
        kb = engine.create_kb(SYSTEM_ACTOR, "kb")
        with engine._db.write() as s:
            job = Job(kind="reindex", owner_id="system", kb_id=kb.id, state="running", pid=dead.pid, host=HOST)
            s.add(job)
        job_id = job.id
    with make_engine(data_dir) as engine:
        [row] = engine.jobs(SYSTEM_ACTOR, ids=[job_id])
        assert row.state == "failed" and row.error.startswith("interrupted")
        assert engine.jobs(SYSTEM_ACTOR, active_only=True) == []
        # killed while this engine runs (e.g. a CLI reindex): the next reindex clears it
        with engine._db.write() as s:
            job = Job(kind="reindex", owner_id="system", kb_id=kb.id, state="running", pid=dead.pid, host=HOST)
            s.add(job)
        engine.reindex(SYSTEM_ACTOR, "kb")
        assert engine.jobs(SYSTEM_ACTOR, ids=[job.id])[0].state == "failed"


def test_a_question_over_the_length_cap_is_refused_before_any_work(engine):
    with pytest.raises(InvalidInput, match="max_question_chars"):
        engine.ask(SYSTEM_ACTOR, "为什么" * 3000)
    assert engine.list_chats(SYSTEM_ACTOR) == []  # refused before a chat was even created
    with pytest.raises(InvalidInput, match="max_question_chars"):
        engine.search(SYSTEM_ACTOR, "q" * 9000)


def test_too_many_url_mentions_are_refused_before_fetching(engine):
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"url_allow_hosts": ["127.0.0.1"]}})
    with local_server() as srv:
        srv.serve("/p", b"<html><body><p>page</p></body></html>", "text/html")
        question = "compare " + " ".join(f"#{srv.url(f'/p?{i}')}" for i in range(6))
        with pytest.raises(InvalidInput, match="max_url_mentions"):
            engine.ask(SYSTEM_ACTOR, question)
        assert srv.hits == []


def test_a_file_that_makes_too_many_chunks_is_refused(engine):
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_chunks_per_file": 3}})
    text = "\n\n".join(f"## Section {i}\n\n" + f"Paragraph {i} about travel rules. " * 20 for i in range(12))
    [result] = engine.ingest(SYSTEM_ACTOR, "kb", [md("long.md", text)])
    assert result.status == "failed" and "max_chunks_per_file" in result.error
    assert engine.kb_stats(SYSTEM_ACTOR, "kb")["vectors"] == 0


@pytest.mark.parametrize("name, problem", [
    ("hand\u202ekoob", "bidi"), ("hand\u200bbook", "zero-width"), ("evil\x1b[31m", "control"), ("a\u2028b", "line separator"),
])
def test_unsafe_names_are_refused_everywhere(engine, name, problem):
    with pytest.raises(InvalidInput, match=problem):
        engine.create_kb(SYSTEM_ACTOR, name)
    with pytest.raises(InvalidInput, match=problem):
        engine.update_kb(SYSTEM_ACTOR, "kb", name=name)
    [upload] = engine.ingest(SYSTEM_ACTOR, "kb", [Upload(name + ".md", b"# t\n\ntext")])
    assert upload.status == "failed" and problem in upload.error and "\x1b" not in upload.name + upload.error


def test_names_are_nfc_normalised(engine):
    engine.create_kb(SYSTEM_ACTOR, "cafe\u0301")  # e + combining acute
    assert engine.get_kb(SYSTEM_ACTOR, "café").name == "café"  # precomposed finds it
    [r] = engine.ingest(SYSTEM_ACTOR, "café", [Upload("re\u0301sume\u0301.md", b"# CV\n\ntext about work")])
    assert r.status == "indexed" and engine.get_file(SYSTEM_ACTOR, r.file_id).name == "résumé.md"
    assert clean_name("  Ａ 手册 ", "knowledge base") == "Ａ 手册"  # NFC keeps width; trimmed


def test_user_names_compare_case_width_and_script_insensitively():
    assert user_name_key("Alice") == user_name_key("ＡＬＩＣＥ") == user_name_key("alice")
    assert user_name_key("аlice") == "alice"  # a Cyrillic а maps to Latin a
    assert user_name_key("ореn") == user_name_key("open")  # all-Cyrillic look-alike of a Latin name
    with pytest.raises(InvalidInput, match="mixes Latin and Cyrillic"):
        clean_user_name("аlice")  # Cyrillic а + Latin lice
    with pytest.raises(InvalidInput, match="Greek"):
        clean_user_name("bοb")  # Greek omicron
    assert clean_user_name("王小明") == "王小明" and clean_user_name("Борис") == "Борис"


def test_the_cli_never_prints_raw_escape_sequences(tmp_path):
    data = tmp_path / "data"
    out = run_cli(data, "search", "--kb", "\x1b]0;pwned\x07\x1b[2J", "x", check=False)
    assert out.returncode == 3 and "\x1b" not in out.stdout + out.stderr and "\\u001b" in out.stderr
    assert printable("ok\u202eexe.txt") == "ok\\u202eexe.txt"


@pytest.mark.parametrize("args", [("--top-k", "-5", "q"), ("--min-score", "nan", "q"), ("--min-score", "1.5", "q"),
                                  ("",), ("   ",)])
def test_cli_search_parameters_are_validated(tmp_path, args):
    data = tmp_path / "data"
    out = run_cli(data, "search", *args, check=False)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and "Traceback" not in out.stderr


def test_a_docx_with_deeply_nested_tables_is_not_called_corrupt():
    import io

    import docx

    from core.parsers.base import ParseContext
    from core.parsers.registry import parse_bytes
    from core.settings.model import ParsingSettings

    document = docx.Document()
    document.add_paragraph("差旅制度：嵌套表格测试。")
    cell = document.add_table(rows=1, cols=1).cell(0, 0)
    for level in range(150):  # about 450 XML levels: libxml2's default stops at 256
        cell.paragraphs[0].text = f"level {level}"
        cell = cell.add_table(rows=1, cols=1).cell(0, 0)
    cell.paragraphs[0].text = "最内层单元格 innermost cell"
    data = io.BytesIO()
    document.save(data)
    doc = parse_bytes(data.getvalue(), "nested.docx", ParseContext(settings=ParsingSettings()))
    assert "最内层单元格 innermost cell" in doc.text and "level 149" in doc.text and "差旅制度" in doc.text


def test_sharing_by_name_cannot_hit_a_look_alike_user(engine):
    from core.db.models import User

    alice = engine.sign_up("alice", "correct horse battery")
    with engine._db.write() as s:  # an impostor row, e.g. from before names were checked at sign-up
        s.add(User(name="\u0430lice", password_hash="", role="user"))  # Cyrillic а
    assert engine.share_kb(SYSTEM_ACTOR, "kb", ["alice"]) == ["alice"]
    shared = engine.shared_with(SYSTEM_ACTOR, "kb")
    assert shared == ["alice"] and alice.name == "alice"
    for typed in ("ALICE", "ａｌｉｃｅ"):  # not exact: which one is meant is ambiguous
        with pytest.raises(InvalidInput, match="look like"):
            engine.share_kb(SYSTEM_ACTOR, "kb", [typed])
    bob = engine.sign_up("bob", "correct horse battery")
    assert engine.share_kb(SYSTEM_ACTOR, "kb", ["BOB"]) == [bob.name]  # one user by that key: case does not matter
