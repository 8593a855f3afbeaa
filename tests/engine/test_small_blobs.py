"""A batch of one-chunk documents creates no file per document: their originals and parsed texts
are database rows (core/ingest/blobs.py), while a long document's are files. Everything that reads
them back finds them: the file's text, its original, reindex, the doctor, delete."""

from __future__ import annotations

from core.ingest.blobs import SMALL_BLOB_BYTES, sha256_hex
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, md


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_small_documents_are_rows_and_a_long_one_is_files_and_all_read_back(engine):
    engine.create_kb(SYSTEM_ACTOR, "kb")
    faq = [md(f"faq-{i}.md", f"# 问题 {i}\n\n第{i}条：报销单须在{i + 3}天内提交给财务部。") for i in range(40)]
    long_text = "\n\n".join(f"## Part {i}\n\n{HANDBOOK_MD}" for i in range(SMALL_BLOB_BYTES // len(HANDBOOK_MD) + 2))
    long = md("long.md", long_text)
    results = engine.ingest(SYSTEM_ACTOR, "kb", faq + [long])
    assert [r.status for r in results] == ["indexed"] * 41, [r.error for r in results]
    blobs, long_id = engine._blobs, results[-1].file_id

    assert _files(blobs.files_dir) == [sha256_hex(long.data)]
    assert _files(blobs.parsed_dir) == [f"{long_id}.json"]
    originals, parsed = blobs.stored_rows()
    assert originals == {sha256_hex(u.data) for u in faq}
    assert parsed == {r.file_id for r in results[:40]}

    assert "在10天内提交" in engine.file_text(SYSTEM_ACTOR, results[7].file_id).text
    assert blobs.get(sha256_hex(faq[7].data)) == faq[7].data
    reindexed = engine.reindex(SYSTEM_ACTOR, "kb")
    assert reindexed.status == "done" and reindexed.files == 41
    assert engine.doctor(SYSTEM_ACTOR).healthy

    engine.delete_files(SYSTEM_ACTOR, [results[0].file_id, long_id])
    originals, parsed = blobs.stored_rows()
    assert sha256_hex(faq[0].data) not in originals and results[0].file_id not in parsed and len(parsed) == 39
    assert _files(blobs.files_dir) == [] and _files(blobs.parsed_dir) == []
    assert engine.doctor(SYSTEM_ACTOR).healthy


def test_an_original_no_file_claims_is_an_orphan_wherever_it_is_kept(engine):
    engine.create_kb(SYSTEM_ACTOR, "kb")
    [kept] = engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD)])
    row_sha = engine._blobs.put(b"an upload whose file row never got written")
    file_sha = engine._blobs.put(b"y" * (SMALL_BLOB_BYTES + 1))
    report = engine.doctor(SYSTEM_ACTOR)
    assert sorted(report.orphan_blobs) == sorted([row_sha, file_sha]) and not report.healthy
    engine.doctor(SYSTEM_ACTOR, repair=True)
    assert not engine._blobs.has(row_sha) and not engine._blobs.has(file_sha)
    assert engine.file_text(SYSTEM_ACTOR, kept.file_id) is not None and engine.doctor(SYSTEM_ACTOR).healthy


def test_an_original_the_disk_refuses_fails_alone_beside_rows_that_are_kept(engine):
    engine.create_kb(SYSTEM_ACTOR, "kb")
    long = md("long.md", "\n\n".join(f"## Part {i}\n\n{HANDBOOK_MD}"
                                     for i in range(SMALL_BLOB_BYTES // len(HANDBOOK_MD) + 2)))
    shard = engine._blobs.files_dir / sha256_hex(long.data)[:2]
    shard.parent.mkdir(parents=True, exist_ok=True)
    shard.write_bytes(b"")  # a file where its folder must go: writing the long original fails
    uploads = [md("a.md", "# A\n\n第一份说明。"), long, md("b.md", "# B\n\nThe second note.")]
    results = {r.name: r for r in engine.ingest(SYSTEM_ACTOR, "kb", uploads)}
    assert results["a.md"].status == results["b.md"].status == "indexed"
    assert results["long.md"].status == "failed" and "storing 'long.md'" in results["long.md"].error
    originals, _ = engine._blobs.stored_rows()
    assert originals == {sha256_hex(uploads[0].data), sha256_hex(uploads[2].data)}
