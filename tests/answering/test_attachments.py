"""Files attached to a chat answer questions about them in normal mode (issue 14, defect 4), and
the answer says where it came from.

The cause: a chat's files live in a collection of their own, and BM25's IDF is computed per
collection, so a lone attachment's keyword score is a fraction of what the same chunk scores
inside a knowledge base (measured: 1.3 vs 7.0 for one table and question), and it fell below the
threshold next to the knowledge bases. Small attachments are now the conversation's own material,
injected whole; their passages are cited with origin "attachment"."""

from __future__ import annotations

from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN

PLANS = """| Plan | Monthly price | Seats | Support |
|---|---|---|---|
| Starter | $9 | 1 | Email |
| Team | $29 | 10 | Chat |
| Enterprise | $99 | unlimited | Phone, 24/7 |
"""
PHONES = """| 部门 | 负责人 | 分机号 |
|---|---|---|
| 财务部 | 王丽 | 2101 |
| 信息技术部 | 李强 | 2202 |
| 人力资源部 | 张敏 | 2303 |
"""


def test_an_attached_markdown_table_answers_a_question_about_a_row(engine):
    chat = engine.create_chat(ADMIN, "plans")
    results = engine.attach_to_chat(ADMIN, chat.id, [Upload("plans.md", PLANS.encode()), Upload("phones.md", PHONES.encode())])
    assert [r.status for r in results] == ["indexed", "indexed"]
    # As the chat page asks: a knowledge base is selected too.
    for question, fact, source in (("How much is the Team plan per month?", "$29", "plans.md"),
                                   ("信息技术部的分机号是多少？", "2202", "phones.md")):
        answer = engine.ask(ADMIN, question, chat_id=chat.id, kbs=["policy"])
        assert fact in answer.text and "do not answer" not in answer.text, answer.text
        assert source in {c.source_name for c in answer.citations}
        assert {c.origin for c in answer.citations} == {"attachment"}
        assert answer.sources == ["attachment"] and not answer.from_kb  # the badge must not say "knowledge base"


def test_a_knowledge_base_answer_says_it_came_from_the_knowledge_base(engine):
    chat = engine.create_chat(ADMIN, "plans")
    engine.attach_to_chat(ADMIN, chat.id, [Upload("plans.md", PLANS.encode())])
    answer = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", chat_id=chat.id, kbs=["policy"])
    assert "六百元" in answer.text
    assert answer.sources and answer.sources[0] == "kb" and answer.from_kb
    assert all(c.origin == "kb" for c in answer.citations if c.source_name == "travel.md")
    stored = engine.chat_messages(ADMIN, chat.id)[-1]
    assert {c["origin"] for c in stored.citations} == set(answer.sources)


def test_the_offline_answer_from_an_attachment_does_not_claim_to_quote_the_knowledge_base(engine):
    """Issue 18: the extractive lead-in names where its quotes come from."""
    chat = engine.create_chat(ADMIN, "plans")
    engine.attach_to_chat(ADMIN, chat.id, [Upload("plans.md", PLANS.encode()), Upload("phones.md", PHONES.encode())])
    english = engine.ask(ADMIN, "How much is the Team plan per month?", chat_id=chat.id, kbs=["policy"])
    assert english.text.split("\n")[0] == "No language model is configured, so this answer quotes the files attached to this chat."
    chinese = engine.ask(ADMIN, "信息技术部的分机号是多少？", chat_id=chat.id, kbs=["policy"])
    assert chinese.text.split("\n")[0] == "未配置语言模型，以下回答直接摘录自对话附件原文。"
    from_kb = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", chat_id=chat.id, kbs=["policy"])
    assert from_kb.text.split("\n")[0] == "未配置语言模型，以下回答直接摘录自知识库原文。"
