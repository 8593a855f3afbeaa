"""The blob store keeps small originals and parsed texts as database rows and larger ones as files
(core/ingest/blobs.py), one place per item: real SQLite and PostgreSQL, real files."""

from __future__ import annotations

import pytest

from core.ingest.blobs import SMALL_BLOB_BYTES, BlobStore, sha256_hex
from core.types import DocPart, ParsedDoc


@pytest.fixture
def blobs(either_database, tmp_path):
    return BlobStore(tmp_path / "files", tmp_path / "parsed", either_database)


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def _doc(text: str) -> ParsedDoc:
    return ParsedDoc(source_name="a.md", mime="text/markdown", title="", parts=[DocPart(text=text)])


def test_a_small_original_is_a_row_and_a_large_one_a_file(blobs):
    small, large = "员工报销须在三十天内提交。".encode(), b"x" * (SMALL_BLOB_BYTES + 1)
    small_sha, large_sha = blobs.put_many([small, large])
    assert _files(blobs.files_dir) == [large_sha]
    assert blobs.stored_rows() == ({small_sha}, set())
    assert blobs.get(small_sha) == small and blobs.get(large_sha) == large
    assert blobs.has(small_sha) and blobs.has(large_sha) and not blobs.has(sha256_hex(b"never stored"))
    assert blobs.put(small) == small_sha and blobs.stored_rows() == ({small_sha}, set())  # kept once
    blobs.delete_blob(small_sha)
    blobs.delete_blob(large_sha)
    assert not blobs.has(small_sha) and not blobs.has(large_sha) and _files(blobs.files_dir) == []


def test_parsed_text_moves_with_its_size_and_is_never_in_two_places(blobs):
    short, long = _doc("第一章 总则"), _doc("long text " * (SMALL_BLOB_BYTES // 10 + 1))
    blobs.put_parsed("f1", short)
    assert blobs.stored_rows() == (set(), {"f1"}) and _files(blobs.parsed_dir) == []
    blobs.put_parsed("f1", long)  # a reindex whose text grew: a file, the row gone
    assert blobs.stored_rows() == (set(), set()) and _files(blobs.parsed_dir) == ["f1.json"]
    assert blobs.get_parsed("f1").text == long.text
    blobs.put_parsed("f1", short)  # and back
    assert blobs.stored_rows() == (set(), {"f1"}) and _files(blobs.parsed_dir) == []
    assert blobs.get_parsed("f1").text == "第一章 总则"
    blobs.delete_parsed("f1")
    assert blobs.get_parsed("f1") is None and blobs.stored_rows() == (set(), set())


def test_rows_written_in_a_callers_transaction_go_with_its_rollback(blobs, either_database):
    with pytest.raises(RuntimeError):
        with either_database.write() as s:
            blobs.put_many([b"an original"], session=s)
            blobs.put_parsed_many([("f2", blobs.encode_parsed(_doc("its text")))], session=s)
            raise RuntimeError("the commit that would have indexed it never happens")
    assert blobs.stored_rows() == (set(), set())
    assert not blobs.has(sha256_hex(b"an original")) and blobs.get_parsed("f2") is None


def test_without_a_database_every_item_is_a_file(tmp_path):
    blobs = BlobStore(tmp_path / "files", tmp_path / "parsed")
    sha = blobs.put(b"small")
    blobs.put_parsed("f3", _doc("small text"))
    assert _files(blobs.files_dir) == [sha] and _files(blobs.parsed_dir) == ["f3.json"]
    assert blobs.get(sha) == b"small" and blobs.get_parsed("f3").text == "small text"
    assert blobs.stored_rows() == (set(), set())
