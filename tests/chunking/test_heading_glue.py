"""Step 2: a heading line is joined to the paragraph after it."""

from __future__ import annotations

import re

import pytest

from core.chunking import chunk_document
from core.chunking.heading_glue import glue_headings, is_heading_line
from core.settings.model import ChunkingSettings
from core.types import DocPart, ParsedDoc

HEADINGS = [
    "# 标题",
    "### Installation",
    "###### 六级标题",
    "第一章 总则",
    "第二节 一般规定",
    "第十条",
    "第3条 适用范围",
    "1. 概述",
    "1. Overview",
    "1.2 Scope",
    "2.3.1 Details of the setup",
    "1、背景",
    "一、总体要求",
    "十二、附则",
    "（一）基本原则",
    "(二) 工作目标",
]

NOT_HEADINGS = [
    "1. Install Docker, then start the container and open the dashboard in your browser now",
    "1. Install Docker.",
    "第一条 为了保障和规范人民检察院依法履行行政诉讼监督职责，结合检察工作实际，制定本规则。",
    "（一）人民法院对生效判决、裁定、调解书驳回再审申请的；",
    "2016年3月22日 最高人民检察院第十二届检察委员会第四十九次会议通过",
    "An ordinary paragraph.",
    "#hashtag is not a heading",
    "####### seven hashes",
]


def nonspace(text: str) -> str:
    return re.sub(r"\s", "", text)


@pytest.mark.parametrize("heading", HEADINGS)
def test_every_heading_form_is_glued_to_its_paragraph(heading: str):
    assert is_heading_line(heading)
    text = f"前文。\n\n{heading}\n\n\n正文内容在这里。\n\n后文。"
    assert glue_headings(text) == f"前文。\n\n{heading}\n正文内容在这里。\n\n后文。"


@pytest.mark.parametrize("line", NOT_HEADINGS)
def test_sentences_that_start_like_headings_are_left_alone(line: str):
    assert not is_heading_line(line)
    text = f"{line}\n\n下一段。"
    assert glue_headings(text) == text


def test_a_chain_of_headings_glues_down_to_the_paragraph():
    assert glue_headings("# 规则\n\n## 第一章 总则\n\n第一条 正文。") == "# 规则\n## 第一章 总则\n第一条 正文。"


def test_a_long_numbered_list_is_not_a_heading_block():
    items = "\n".join(f"{i}. item" for i in range(1, 6))
    text = f"{items}\n\nNext paragraph."
    assert glue_headings(text) == text


def test_heading_at_the_very_end_is_left_as_is():
    assert glue_headings("正文。\n\n第二章 罚则\n\n") == "正文。\n\n第二章 罚则\n\n"


def test_lines_inside_code_are_not_headings():
    text = "```bash\n# install\n\necho hi\n```\n\nAfter."
    assert glue_headings(text) == text


def test_a_heading_before_a_code_block_is_glued_to_it():
    assert glue_headings("## Install\n\n```bash\npip install x\n```") == "## Install\n```bash\npip install x\n```"


def test_glue_changes_only_whitespace():
    text = "\n\n".join(HEADINGS + NOT_HEADINGS)
    assert nonspace(glue_headings(text)) == nonspace(text)


def _doc(text: str) -> ParsedDoc:
    return ParsedDoc("规则.txt", "text/plain", [DocPart(text)])


def test_a_heading_never_ends_a_chunk_alone():
    # Without glue the greedy split puts the heading at the end of the first chunk.
    first = "本规则适用于全部案件。" * 40  # 440 characters
    text = f"{first}\n\n第二章 罚则\n\n" + "违反本规则的，依法处理。" * 5  # 60 more
    cfg = ChunkingSettings(chunk_size=500, chunk_overlap=0, markdown_header_split=False)

    glued = chunk_document(_doc(text), cfg)
    assert [c.text.startswith("第二章 罚则\n违反") for c in glued] == [False, True]

    unglued = chunk_document(_doc(text), cfg.model_copy(update={"heading_glue": False}))
    assert unglued[0].text.endswith("第二章 罚则")


def test_a_heading_before_an_oversized_paragraph_opens_its_first_piece():
    long_paragraph = "当事人申请监督的，人民检察院应当依法受理并及时审查" * 30  # one line, no sentence end
    text = f"引言。\n\n第三章 审查\n\n{long_paragraph}"
    cfg = ChunkingSettings(chunk_size=200, chunk_overlap=0, markdown_header_split=False)
    chunks = chunk_document(_doc(text), cfg)
    assert chunks[0].text == "引言。"
    assert chunks[1].text.startswith("第三章 审查\n当事人")
    assert all(not is_heading_line(c.text.split("\n")[-1]) for c in chunks)
