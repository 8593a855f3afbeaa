"""An answer's steps and notices in Chinese under a Chinese question (issue 36): the status
lines ("searching the knowledge base") were English, and so were the engine's notices ("strict
mode does not ask back, so nothing was searched: no knowledge base named …")."""

from __future__ import annotations

import re

from tests.dashboard.test_chat_page import NO_HIT, _bubbles, _chat_ready

ENGLISH_WORDS = re.compile(r"\b(?:searching|nothing|passed|strict mode|knowledge base named|Did you mean)\b")


def test_a_strict_answer_to_a_mistyped_mention_is_said_in_chinese(engine):
    at, _, _ = _chat_ready(engine)
    at.sidebar.selectbox(key="user_lang").select("zh")
    at.run()
    at.chat_input[0].set_value("#unrelatd 出差乘坐飞机要提前几天申请？").run()
    assert not at.exception, [e.value for e in at.exception]
    answer = _bubbles(at)[-1]
    assert NO_HIT in answer and "严格模式不会反问" in answer and "#unrelated" in answer, answer
    assert not ENGLISH_WORDS.search(answer), answer
    at.chat_input[0].set_value("今天天气怎么样？").run()
    answer = _bubbles(at)[-1]
    assert "正在检索知识库" in answer and "知识库中没有内容达到阈值" in answer, answer
    assert not ENGLISH_WORDS.search(answer), answer
