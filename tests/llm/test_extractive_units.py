"""What the extractive answerer quotes: whole lists, whole sentences across PDF line ends, table
rows with their header, the sentence stating the kind of fact asked for."""

from __future__ import annotations

import re

import pytest

from core.llm.extractive import ExtractiveAnswerer, Passage
from core.llm.quotable import join_soft_breaks, quote_units

ARTICLES = Passage(1, """第十条 人民检察院行政检察部门负责对受理后的行政诉讼监督案件进行审查。

第十一条 人民检察院对审查终结的案件，应当区分情况作出下列决定：

（一）再审检察建议；

（二）提请抗诉；

（三）抗诉；

（四）检察建议；

（五）不支持监督申请；

（六）终结审查。

第十二条 人民检察院受理当事人申请监督的案件，应当在三个月内审查终结并作出决定。""", "规则.md")

UNMARKED = Passage(2, """第六条 当事人申请监督，应当在裁定之日起六个月内提出。

当事人以下列理由申请监督，应当在知道之日起六个月内提出：

有新的证据，足以推翻再审判决、裁定的；

再审判决、裁定认定事实的主要证据系伪造的；

审判人员在审理该案件时有贪污受贿、徇私舞弊、枉法裁判行为的。

本条规定的期间为不变期间，不适用中止、中断、延长的规定。""", "规则.md")

PDF_EN = Passage(1, """Employees who wish to work remotely must submit a written request to their line
manager at least ten working days before the first remote day. The request must state the
address from which they will work and the equipment they need. All personal infor-
mation in the request is kept confidential by the HR department.
Expense claims are reimbursed within thirty days of approval.""", "handbook.pdf")

TABLE = Passage(1, """## Price list

| Fruit | Price per kg | Origin |
|---|---|---|
| Juicy apples | 3.20 EUR | Normandy |
| Ripe bananas | 1.80 EUR | Canary Islands |
| Sour lemons | 4.10 EUR | Sicily |
""", "prices.md")


@pytest.fixture(scope="module")
def answerer() -> ExtractiveAnswerer:
    return ExtractiveAnswerer()


def body(result) -> list[str]:
    return result.text.split("\n")[1:]


def test_a_sentence_that_introduces_a_list_is_quoted_with_its_items(answerer):
    result = answerer.answer("对审查终结的案件可以作出哪些决定？", [ARTICLES])
    assert body(result) == [
        "第十一条 人民检察院对审查终结的案件，应当区分情况作出下列决定：",
        "（一）再审检察建议；", "（二）提请抗诉；", "（三）抗诉；", "（四）检察建议；", "（五）不支持监督申请；",
        "（六）终结审查。[1]",
    ]
    assert "第十二条" not in result.text  # the list ends with its article


def test_unmarked_items_of_a_lead_are_quoted_up_to_the_end_of_the_list(answerer):
    result = answerer.answer("以哪些理由申请监督要在知道之日起六个月内提出？", [UNMARKED])
    lines = body(result)
    assert lines[0] == "当事人以下列理由申请监督，应当在知道之日起六个月内提出："
    assert lines[-1].startswith("审判人员在审理该案件时") and lines[-1].endswith("[1]")
    assert "不变期间" not in result.text


@pytest.mark.parametrize("marker", ["1. ", "(a) ", "- ", "一、"])
def test_english_and_other_list_markers(answerer, marker):
    items = ["a copy of the signed contract", "proof of address", "two passport photos"]
    text = "To open an account you must bring the following:\n" + "\n".join(marker + i for i in items) + \
        "\n\nAccounts are opened within two days."
    result = answerer.answer("What documents must I bring to open an account?", [Passage(1, text, "x")])
    assert body(result)[0] == "To open an account you must bring the following:"
    assert body(result)[1:] == [marker + items[0], marker + items[1], marker + items[2] + " [1]"]


def test_a_long_list_stops_within_the_character_cap():
    items = "\n".join(f"（{n}）第{n}项情形的具体描述文字；" for n in "一二三四五六七八九十")
    passage = Passage(1, "第九条 有下列情形之一的，人民检察院应当依职权进行监督：\n" + items, "x")
    result = ExtractiveAnswerer(max_quote_chars=80).answer("哪些情形应当依职权进行监督？", [passage])
    quoted = result.text.split("\n", 1)[1]
    assert len(quoted) <= 80 + len("\n…[1]") and quoted.endswith("…[1]") and "（一）" in quoted


def test_pdf_line_ends_and_hyphenation_are_joined_before_sentences_are_split(answerer):
    joined = join_soft_breaks(PDF_EN.text)
    assert "All personal information in the request is kept confidential by the HR department." in joined
    result = answerer.answer("How many days in advance must a remote work request be submitted?", [PDF_EN])
    assert body(result) == ["Employees who wish to work remotely must submit a written request to their line manager "
                            "at least ten working days before the first remote day. [1]"]
    who = answerer.answer("Who keeps the personal information confidential?", [PDF_EN])
    assert body(who) == ["All personal information in the request is kept confidential by the HR department. [1]"]


def test_chinese_pdf_line_ends_join_without_a_space():
    assert join_soft_breaks("人民检察院受理当事人申请监督的案件，应当在三个月\n内审查终结并作出决定。\n第十三条 其他。") == \
        "人民检察院受理当事人申请监督的案件，应当在三个月内审查终结并作出决定。\n第十三条 其他。"


def test_a_table_row_is_quoted_with_its_header_row(answerer):
    result = answerer.answer("How much do ripe bananas cost per kg?", [TABLE])
    assert result.text.split("\n", 1)[1] == (
        "| Fruit | Price per kg | Origin |\n| --- | --- | --- |\n| Ripe bananas | 1.80 EUR | Canary Islands |\n\n[1]")
    rows = [u for u in quote_units(TABLE.text) if u.kind == "row"]
    assert [u.text.split("|")[1].strip() for u in rows] == ["Juicy apples", "Ripe bananas", "Sour lemons"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("人民检察院审查申请监督的案件期限是多长时间？", "第十二条"),  # a duration: 三个月
        ("哪个部门负责审查受理后的案件？", "第十条"),  # an organ
    ],
)
def test_the_sentence_stating_the_kind_of_fact_asked_for_wins(answerer, question, expected):
    result = answerer.answer(question, [ARTICLES])
    assert result.quotes[0].sentence.startswith(expected), result.text


def test_a_when_does_it_take_effect_question_quotes_the_effective_date_sentence(answerer):
    passage = Passage(1, "第三十六条 本规则没有规定的，适用其他规则的相关规定。\n"
                         "第三十七条 本规则自发布之日起施行。本院之前公布的规定与本规则不一致的，以本规则为准。", "x")
    result = answerer.answer("这个规则从什么时候开始施行？", [passage])
    assert body(result) == ["第三十七条 本规则自发布之日起施行。[1]"]
    english = Passage(1, "This policy applies to all staff. This policy takes effect on 1 March 2025.", "y")
    assert body(answerer.answer("When does the policy take effect?", [english])) == [
        "This policy takes effect on 1 March 2025. [1]"]


def test_line_breaks_between_quotes_are_kept(answerer):
    result = answerer.answer("哪个部门负责审查？作出哪些决定？", [ARTICLES])
    assert result.text.count("\n") >= 3 and re.findall(r"\[(\d+)\]", result.text) == ["1"]


def test_a_sentence_cut_at_a_chunk_boundary_is_completed_from_the_next_chunk(answerer):
    first = Passage(1, "Retrieval matters. A simple framework has two stages: a context retriever first selects "
                       "a small subset of passages where some of them contain the answer, and", "paper.pdf")
    second = Passage(2, "some of them contain the answer, and then a machine reader examines the retrieved "
                        "contexts and identifies the answer. Other systems differ.", "paper.pdf")
    result = answerer.answer("What are the two stages of the framework?", [second, first])
    assert body(result) == ["A simple framework has two stages: a context retriever first selects a small subset of "
                            "passages where some of them contain the answer, and then a machine reader examines the "
                            "retrieved contexts and identifies the answer. [1]"]
    assert result.citations == [1]  # cited where the sentence starts
