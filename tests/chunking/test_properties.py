"""Properties of the whole pipeline over generated documents (hypothesis).

No text is lost: every non-whitespace character of the cleaned input appears, in order,
across the chunks (exactly once when there is no overlap). No chunk exceeds chunk_size.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.chunking import chunk_document, cleaned_text
from core.settings.model import ChunkingSettings
from core.types import DocPart, ParsedDoc

BLOCKS = [
    "# 标题", "## Setup guide", "### 第一节 一般规定", "第一章 总则", "第三条", "1. 概述", "1.2 Scope",
    "一、总体要求", "（一）基本原则", "- item one\n- item two", "1. first\n2. second\n3. third",
    "| a | b |\n|---|---|\n| 1 | 2 |", "| col | 值 |\n| --- | --- |\n| 1 | 一 |\n| 2 | 二 |\n| 3 | 三 |\n| 4 | 四 |", "```python\n# code, not a heading\nx = 1\n\n\ny = 2\n```",
    "人民检察院通过抗诉、检察建议等方式，对行政诉讼实行法律监督。", "Is this a question? Yes! It is.",
    "<p>Some <b>HTML</b> text</p>", "**bold** and [a link](https://x.org) and ![img](a.png)",
    "", "   ", "\n",
]

words = st.text(alphabet="abcdefghij 。，！？；.!?\n\t\r\x00中文字词句段#*_`<>[]()|-~:第章1、（）", min_size=1, max_size=300)
block = st.one_of(st.sampled_from(BLOCKS), words)
part_text = st.lists(block, min_size=0, max_size=12).map("\n\n".join)


@st.composite
def configs(draw) -> ChunkingSettings:
    size = draw(st.integers(50, 400))
    return ChunkingSettings(
        chunk_size=size,
        chunk_overlap=draw(st.integers(0, size // 2)),
        chunk_min_size_target=draw(st.integers(0, size)),
        markdown_header_split=draw(st.booleans()),
        heading_glue=draw(st.booleans()),
    )


def tokens(text: str) -> int:
    """A word/character tokenizer: one token per Latin word, CJK character or punctuation mark."""
    return len(re.findall(r"[A-Za-z0-9]+|\S", text))


def nonspace(text: str) -> str:
    return re.sub(r"\s", "", text)


def is_subsequence(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(ch in it for ch in needle)


def make_doc(texts: list[str]) -> ParsedDoc:
    return ParsedDoc("gen.md", "text/markdown", [DocPart(t, page=i + 1) for i, t in enumerate(texts)])


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(st.lists(part_text, min_size=1, max_size=4), configs(), st.sampled_from([len, tokens]))
@example(["| col | 值 |\n| --- | --- |\n| 1 | 一 |\n| 2 | 二 |\n| 3 | 三 |\n| 4 | 四 |"],
         ChunkingSettings(chunk_size=52, chunk_overlap=1, chunk_min_size_target=0, markdown_header_split=False,
                          heading_glue=False), len)  # a short last piece of a split table, after its header
def test_no_text_lost_and_no_chunk_too_big(texts: list[str], cfg: ChunkingSettings, count):
    doc = make_doc(texts)
    chunks = chunk_document(doc, cfg, count=count)
    source = nonspace(cleaned_text(doc))
    produced = nonspace("".join(c.text[c.header_chars :] for c in chunks))

    assert all(count(c.text) <= cfg.chunk_size for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.text.strip() for c in chunks)
    if cfg.chunk_overlap == 0:
        assert produced == source
    else:
        assert is_subsequence(source, produced)
        if chunks:
            assert source.startswith(nonspace(chunks[0].text[chunks[0].header_chars :])[:20])
            # the last chunk's own text ends the source; a repeated table header opening it does not
            assert source.endswith(nonspace(chunks[-1].text[chunks[-1].header_chars :])[-20:])


@PROPERTY
@given(st.lists(part_text, min_size=1, max_size=4), configs())
def test_every_chunk_names_the_page_where_its_text_begins(texts: list[str], cfg: ChunkingSettings):
    cfg = cfg.model_copy(update={"chunk_overlap": 0})
    doc = make_doc(texts)
    # Without overlap the chunks partition the cleaned text, so chunk k begins at the
    # non-space ordinal equal to the length of everything before it.
    page_sizes = [len(nonspace(cleaned_text(ParsedDoc("p", "text/plain", [p])))) for p in doc.parts]
    page_of_ordinal = [n + 1 for n, size in enumerate(page_sizes) for _ in range(size)]
    ordinal = 0
    for chunk in chunk_document(doc, cfg):
        assert chunk.page == page_of_ordinal[ordinal]
        ordinal += len(nonspace(chunk.text[chunk.header_chars :]))
    assert ordinal == len(page_of_ordinal)
