"""The offline extractive answerer on regulation-like Chinese text and an English handbook."""

from __future__ import annotations

import re

import pytest

from core.llm.base import ChatMessage, Done, RetrievedContext, TextDelta, collect
from core.llm.extractive import ExtractiveAnswerer, Passage
from tests.conftest import shared_path

HANDBOOK_ZH = [
    Passage(1, "## 第三章 休假管理\n"
               "第十二条 员工在本公司连续工作满一年的，每年享受带薪年休假五天；工作满十年的，年休假为十天。\n"
               "第十三条 年休假原则上应在当年度内休完，因工作需要确实无法安排的，可以跨年度安排一次，但不得超过次年三月三十一日。\n"
               "第十四条 员工休年休假期间，工资照常发放。", "员工手册.md"),
    Passage(2, "第十五条 员工因病需要请假的，应当提交二级以上医院出具的诊断证明。\n"
               "第十六条 病假期间，公司按照本人基本工资的百分之八十支付病假工资，但不得低于当地最低工资标准的百分之八十。\n"
               "第十七条 员工连续病假超过三个月的，公司可以依法解除劳动合同。", "员工手册.md"),
    Passage(3, "第二十条 员工加班的，公司应当优先安排同等时间的调休；不能安排调休的，按照劳动法规定支付加班工资。\n"
               "第二十一条 法定节假日安排加班的，按照不低于本人日工资的百分之三百支付加班工资。", "考勤制度.md"),
]

HANDBOOK_EN = [
    Passage(1, "Annual leave. Full-time employees receive 20 days of paid annual leave per calendar year. "
               "Part-time employees receive leave in proportion to their contracted hours. "
               "Unused leave of up to 5 days may be carried over to the next year.", "handbook.md"),
    Passage(2, "Sick leave. Employees who are ill must notify their manager before 10 a.m. on the first day of absence. "
               "A doctor's certificate is required for absences longer than three consecutive days. "
               "Sick pay is 80% of the base salary for the first 30 days.", "handbook.md"),
    Passage(3, "Expenses. Travel expenses must be submitted within 30 days with original receipts. "
               "Economy class is the default for flights under six hours.", "expenses.md"),
]

NO_LLM_ZH = "未配置语言模型"
NO_LLM_EN = "No language model is configured"


def quoted(answer) -> list[tuple[int, str]]:
    return [(q.n, q.sentence) for q in answer.quotes]


@pytest.fixture(scope="module")
def answerer() -> ExtractiveAnswerer:
    return ExtractiveAnswerer()


@pytest.mark.parametrize(
    ("question", "n", "expected_start"),
    [
        ("年休假可以跨年吗？", 1, "第十三条"),
        ("病假工资怎么算？", 2, "第十六条"),
        ("法定节假日加班工资怎么算？", 3, "第二十一条"),
        ("病假超过三个月会怎样？", 2, "第十七条"),
    ],
)
def test_chinese_questions_quote_the_one_article_that_answers(answerer, question, n, expected_start):
    result = answerer.answer(question, HANDBOOK_ZH)
    assert result.answered and result.language == "zh"
    assert len(result.quotes) == 1, quoted(result)  # no padding with merely related articles
    assert result.quotes[0].n == n and result.quotes[0].sentence.startswith(expected_start)
    lines = result.text.split("\n")
    assert lines[0].startswith(NO_LLM_ZH) and "知识库" in lines[0]
    assert lines[1] == f"{result.quotes[0].sentence}[1]"  # the first citation of an answer is [1]
    assert result.citations == [n]
    assert len(lines) == 2


def test_a_how_many_question_gets_the_sentence_with_the_number(answerer):
    result = answerer.answer("年假有几天？", HANDBOOK_ZH)
    # 第十二条 is two sentences (split at ；); both state the numbers and are quoted as one cited line.
    assert quoted(result) == [(1, "第十二条 员工在本公司连续工作满一年的，每年享受带薪年休假五天；"), (1, "工作满十年的，年休假为十天。")]
    assert result.text.split("\n")[1:] == ["第十二条 员工在本公司连续工作满一年的，每年享受带薪年休假五天；工作满十年的，年休假为十天。[1]"]
    assert result.citations == [1]


def test_citation_numbers_are_consecutive_in_the_order_they_appear(answerer):
    renumbered = [Passage(7, HANDBOOK_ZH[2].text, "x"), Passage(4, HANDBOOK_ZH[1].text, "y")]
    result = answerer.answer("病假工资怎么算？", renumbered)
    assert result.citations == [4] and result.text.endswith("[1]")
    # Passages 1, 2 and 4 quoted: the answer says [1] [2] [3], and sources map them back.
    four = [HANDBOOK_ZH[0], HANDBOOK_ZH[1], Passage(3, "第三十条 食堂每天中午十二点开饭。", "z"),
            Passage(4, HANDBOOK_ZH[2].text, "考勤制度.md")]
    mixed = answerer.answer("年休假可以跨年吗？病假工资怎么算？法定节假日加班工资怎么算？", four)
    assert re.findall(r"\[(\d+)\]", mixed.text) == ["1", "2", "3"], mixed.text
    assert mixed.citations == [1, 2, 4]
    assert mixed.text.split("\n")[1:] == [f"{q.sentence}[{k}]" for k, q in enumerate(mixed.quotes, 1)]


def test_off_topic_questions_are_not_answered(answerer):
    for question in ("今天天气怎么样？", "公司食堂几点开饭？"):
        result = answerer.answer(question, HANDBOOK_ZH)
        assert not result.answered and result.quotes == []
        assert result.text == "未配置语言模型，以下回答直接摘录自知识库原文。\n检索到的资料没有回答这个问题。"


def test_strict_mode_uses_the_uncovered_text(answerer):
    result = answerer.answer("公司食堂几点开饭？", HANDBOOK_ZH, uncovered_text="知识库中未收录")
    assert result.text.split("\n")[1] == "知识库中未收录" and "[" not in result.text


def test_a_question_in_two_parts_names_the_part_not_covered(answerer):
    result = answerer.answer("年假有几天？试用期有多长？", HANDBOOK_ZH, uncovered_text="知识库中未收录")
    assert result.answered and result.citations == [1]
    assert result.uncovered_parts == ["试用期有多长"]
    assert result.text.split("\n")[-1] == "关于「试用期有多长」：知识库中未收录"
    normal = answerer.answer("年假有几天？试用期有多长？", HANDBOOK_ZH)
    assert normal.text.split("\n")[-1] == "关于「试用期有多长」，检索到的资料没有涉及。"


def test_both_parts_answered_from_different_passages(answerer):
    result = answerer.answer("年休假可以跨年吗？病假工资怎么算？", HANDBOOK_ZH)
    assert [q.sentence[:4] for q in result.quotes] == ["第十三条", "第十六条"] and result.citations == [1, 2]
    assert result.uncovered_parts == []


def test_repeated_sentences_from_overlapping_chunks_are_quoted_once(answerer):
    overlap = [HANDBOOK_ZH[1], Passage(2 + 1, HANDBOOK_ZH[1].text.split("\n")[1], "员工手册.md")]
    result = answerer.answer("病假工资怎么算？", overlap)
    assert len(result.quotes) == 1 and result.quotes[0].n == 2


@pytest.mark.parametrize(
    ("question", "n", "expected"),
    [
        ("How many days of annual leave do I get?", 1, "Full-time employees receive 20 days of paid annual leave per calendar year."),
        ("When is a doctor's certificate required?", 2, "A doctor's certificate is required for absences longer than three consecutive days."),
        ("How much is sick pay?", 2, "Sick pay is 80% of the base salary for the first 30 days."),
        ("Can unused leave be carried over?", 1, "Unused leave of up to 5 days may be carried over to the next year."),
        ("How long do I have to submit travel expenses?", 3, "Travel expenses must be submitted within 30 days with original receipts."),
    ],
)
def test_english_questions(answerer, question, n, expected):
    result = answerer.answer(question, HANDBOOK_EN)
    assert result.language == "en" and quoted(result) == [(n, expected)]
    assert result.text == f"No language model is configured, so this answer quotes the knowledge base.\n{expected} [1]"
    assert result.citations == [n]


def test_english_not_answered_and_partly_answered(answerer):
    assert answerer.answer("What is the dress code?", HANDBOOK_EN).text.endswith(
        "The retrieved passages do not answer this question.")
    both = answerer.answer("How many days of annual leave do I get? What is the parental leave policy?", HANDBOOK_EN)
    assert both.citations == [1] and both.text.split("\n")[-1] == (
        "The retrieved passages do not cover “What is the parental leave policy”.")


def test_no_passages_at_all(answerer):
    result = answerer.answer("年假有几天？", [])
    assert not result.answered and result.text.startswith(NO_LLM_ZH)


def test_stream_reads_the_retrieved_attachment_not_the_prompt_text(answerer):
    context = RetrievedContext("病假工资怎么算？", HANDBOOK_ZH, uncovered_text="知识库中未收录")
    prompt = "Use the context below...\n<context>[1] 第十二条...</context>\nQuery: 病假工资怎么算？"
    messages = [ChatMessage("system", "你是助手。"), ChatMessage("user", prompt, retrieved=context)]
    events = list(answerer.stream(messages))
    assert isinstance(events[-1], Done) and all(isinstance(e, TextDelta) for e in events[:-1])
    assert collect(events).text == answerer.answer("病假工资怎么算？", HANDBOOK_ZH).text
    assert collect(events).text.endswith("[1]")
    bare = collect(answerer.stream([ChatMessage("user", "Hello there")]))
    assert bare.text.startswith(NO_LLM_EN) and bare.text.endswith("do not answer this question.")


@pytest.mark.shared
def test_real_regulation_articles(answerer):
    doc = shared_path("zh-policy", "人民检察院行政诉讼监督规则（试行）(2016-04-15).md").read_text(encoding="utf-8")
    articles = {m.group(1): m.group(0) for m in re.finditer(r"^(第[一二三四五六七八九十百]+条).*(?:\n(?!第[一二三四五六七八九十百]+条|#).*)*",
                                                             doc, re.M)}
    passages = [Passage(i + 1, articles[a], a) for i, a in enumerate(["第二条", "第三条", "第四条"])]
    result = answerer.answer("人民检察院通过哪些方式对行政诉讼实行法律监督？", passages)
    assert quoted(result) == [(2, "第三条 人民检察院通过抗诉、检察建议等方式，对行政诉讼实行法律监督。")]
    deadline = answerer.answer("当事人申请监督应当在多长时间内提出？", [Passage(1, articles["第六条"], "第六条")])
    assert deadline.quotes and all("六个月内提出" in q.sentence for q in deadline.quotes)
    off = answerer.answer("检察官的工资标准是多少？", passages, uncovered_text="知识库中未收录")
    assert not off.answered and off.text.endswith("知识库中未收录")
