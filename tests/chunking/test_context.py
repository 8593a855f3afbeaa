"""Contextual chunk text: a chunk from the middle of a section is indexed with its title and
heading path, the stored (quoted) text stays the chunk's own."""

from __future__ import annotations

import pytest

from core.chunking.context import context_line, contextual_text
from core.embeddings.factory import make_embedder
from core.ingest.pipeline import make_chunks
from core.parsers.text import PARSER
from core.settings.model import ChunkingSettings, EmbeddingSettings
from core.types import SYSTEM_ACTOR, Chunk
from tests.engine.conftest import make_engine, md

# One long section: the size split leaves its later chunks without the heading line.
LEAVE_MD = "# 员工手册\n\n本手册适用于公司全体员工。\n\n## 第三章 探亲\n\n" + "".join(
    f"第{n}条 员工入职满{n}年后，每年的带薪假期按公司规定另行计算，须提前两周通过系统提交申请并经主管审批。\n\n"
    for n in range(1, 9)
) + "## 第四章 报销\n\n差旅费用报销须在出差结束后三十天内提交发票。\n"


def _chunks(contextual: bool) -> list[Chunk]:
    doc = PARSER.parse(LEAVE_MD.encode(), "handbook.md", None)
    cfg = ChunkingSettings(chunk_size=120, chunk_overlap=10, contextual_text=contextual)
    return make_chunks(doc, cfg, make_embedder(EmbeddingSettings(provider="local", model="hash-64")))


def test_a_mid_section_chunk_gets_title_and_heading_path_the_first_does_not_repeat_them():
    chunks = _chunks(contextual=True)
    leave = [c for c in chunks if c.heading_path[-1:] == ("第三章 探亲",)]
    assert len(leave) >= 3, "the section must be split for this test to mean anything"
    first, later = leave[0], leave[-1]
    assert "第三章 探亲" in first.text[:40] and "第三章 探亲" not in first.context  # already opens with it
    assert "第三章 探亲" not in later.text
    assert later.context == "员工手册 › 第三章 探亲"
    assert later.indexed_text == f"员工手册 › 第三章 探亲\n{later.text}"


def test_off_by_default_off_indexes_the_text_as_it_is_and_the_stored_text_never_changes():
    plain, contextual = _chunks(contextual=False), _chunks(contextual=True)
    assert ChunkingSettings().contextual_text is False
    assert all(c.context == "" and c.indexed_text == c.text for c in plain)
    assert [c.text for c in plain] == [c.text for c in contextual]


def test_title_is_used_once_and_markdown_marks_are_dropped():
    c = Chunk(text="Staff travel second class.", index=3, source_name="faq.md", heading_path=("# Travel FAQ", "Trains"))
    assert context_line(c, "Travel FAQ") == "Travel FAQ › Trains"
    assert contextual_text(Chunk(text="plain", index=0, source_name="x.txt"), None) == "plain"


@pytest.mark.parametrize("contextual", [False, True])
def test_keyword_search_matches_a_mid_section_chunk_by_its_heading_only_with_context(data_dir, monkeypatch, contextual):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    engine = make_engine(data_dir, chunking={"chunk_size": 120, "chunk_overlap": 10, "contextual_text": contextual})
    try:
        engine.create_kb(SYSTEM_ACTOR, "kb")
        assert engine.ingest(SYSTEM_ACTOR, "kb", [md("handbook.md", LEAVE_MD)])[0].status == "indexed"
        # 探亲 is only in the section heading, not in the text of its later chunks
        hits = engine.search(SYSTEM_ACTOR, "探亲", ["kb"], mode="bm25", top_k=20, min_score=0).hits
        matched = [h for h in hits if h.bm25 and h.bm25 > 0]
        later = [h for h in matched if "探亲" not in h.text]
        assert any("探亲" in h.text for h in matched)  # the chunk that opens with the heading, either way
        if contextual:
            assert later and all("第三章" not in h.text and "员工手册" not in h.text for h in later)
        else:
            assert later == []
        assert all(not h.text.startswith("员工手册 ›") for h in hits)  # quoted text is the chunk's own
    finally:
        engine.close()
