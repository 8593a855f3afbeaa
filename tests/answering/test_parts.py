"""The small pieces: intent gate, template filling, context blocks, the budget."""

from __future__ import annotations

import pytest

from core.answering.budget import cut_to_tokens, fit_items, trim_history
from core.answering.intent import skip_reason
from core.answering.prompts import ContextItem, fill_template, format_context, number, strict_messages
from core.llm.base import ChatMessage, approx_token_count


@pytest.mark.parametrize("message", ["你好", "您好！", "hi", "Hi there!", "谢谢", "thanks!", "ok", "再见", "在吗？", "good morning", "?", "。", "嗯"])
def test_chit_chat_and_near_empty_messages_skip_retrieval(message):
    assert skip_reason(message) is not None


@pytest.mark.parametrize("message", ["年假有几天？", "你好，年假有几天？", "VPN?", "Hello, how do I reset my password?", "报销", "What is the leave policy?"])
def test_questions_are_retrieved_for(message):
    assert skip_reason(message) is None


def test_template_fills_context_and_query_once():
    out = fill_template("C:{{CONTEXT}} Q:{{QUERY}}", "ctx", "what about {{CONTEXT}}?")
    assert out == "C:ctx Q:what about {{CONTEXT}}?"


def test_context_blocks_are_numbered_with_source_and_location():
    items = number([ContextItem("第一段", "a.pdf", "p. 3"), ContextItem("second", "b.md")])
    assert format_context(items) == "[1] a.pdf (p. 3)\n第一段\n\n[2] b.md\nsecond"


def test_strict_prompt_is_exactly_a_system_block_then_the_user_message():
    items = number([ContextItem("第五条 住宿费不超过六百元。", "travel.md")])
    prompt = strict_messages("住宿费多少？", items, "知识库中未收录")
    assert [m.role for m in prompt.messages] == ["system", "user"]
    assert "[1] travel.md\n第五条" in prompt.messages[0].content and "「知识库中未收录」" in prompt.messages[0].content
    assert prompt.messages[1].content == "住宿费多少？"
    assert prompt.messages[1].retrieved.uncovered_text == "知识库中未收录"


def test_budget_keeps_the_most_relevant_and_cuts_documents():
    items = [ContextItem("低" * 100, "low", score=0.3), ContextItem("高" * 100, "high", score=0.9),
             ContextItem("中" * 100, "mid", score=0.6)]
    fitted = fit_items(items, 250, approx_token_count)
    assert [i.source for i in fitted.kept] == ["high", "mid"] and [i.source for i in fitted.dropped] == ["low"]
    assert "1 less relevant passage left out (low)" in str(fitted.notice())
    doc = ContextItem("字" * 1000, "whole.md", score=1.0, kind="document")
    cut = fit_items([doc], 300, approx_token_count)
    assert cut.kept == [doc] and cut.cut == [doc] and approx_token_count(doc.text) <= 300 - 16
    assert "shortened: whole.md" in str(cut.notice())
    assert fit_items([ContextItem("x", "y")], 1000, approx_token_count).notice() is None


def test_cut_and_history_trimming():
    assert cut_to_tokens("abcdefgh" * 10, 5, approx_token_count) == "abcdefgh" * 2 + "abcd"
    history = [ChatMessage("user", "一" * 50), ChatMessage("assistant", "二" * 50), ChatMessage("user", "三" * 50)]
    assert [m.content[0] for m in trim_history(history, 120, approx_token_count)] == ["二", "三"]
