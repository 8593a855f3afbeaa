"""Follow-up questions: normal mode searches a follow-up with the conversation's context (the
chat model writes the query; offline, the previous question is joined to it); a standalone
question is searched as written; strict mode stays without history."""

from __future__ import annotations

from core.answering.followup import looks_like_follow_up, parse_query, rule_query
from core.llm.base import ChatMessage
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, use_openai
from tests.fakes import text

FIRST = "一线城市住宿费每晚不超过多少？"
FOLLOW = "那其他城市呢？"


def test_follow_ups_are_told_from_standalone_questions():
    for q in ("And for managers?", "What about weekends?", "How is it paid?", "那第二条呢？", "其他城市呢？", "还有病假？",
              "How far in advance?", "Which form?"):
        assert looks_like_follow_up(q), q
    for q in ("How many days of paid annual leave does an employee get?", "出差乘坐飞机要提前几天申请？",
              "Who approves business class flights?", "Hotel limit in Berlin?", "Where do I report a lost laptop?"):
        assert not looks_like_follow_up(q), q


def test_the_rule_joins_a_follow_up_to_the_previous_questions_query_in_a_chain():
    earlier = [ChatMessage("user", "How is overtime paid on workdays?"), ChatMessage("assistant", "1.5 times [1]"),
               ChatMessage("user", "And on weekends?"), ChatMessage("assistant", "2 times [1]")]
    assert rule_query("Who approves it?", earlier) == "How is overtime paid on workdays? And on weekends? Who approves it?"
    # A new standalone question starts over.
    assert rule_query("How many days of annual leave do employees get?", earlier) == \
        "How many days of annual leave do employees get?"
    assert parse_query('sure: {"query": "overtime weekends"}') == "overtime weekends"
    assert parse_query("no json here") is None


def _search_queries(answer) -> list[dict]:
    return [e.data for e in answer.events if e.kind == "search_query"]


def test_offline_a_follow_up_finds_the_passage_its_bare_words_miss(engine):
    configure(engine, llm={"provider": "extractive"})
    bare = engine.ask(ADMIN, FOLLOW, temporary=True)
    first = engine.ask(ADMIN, FIRST)
    follow = engine.ask(ADMIN, FOLLOW, chat_id=first.chat_id)
    assert _search_queries(follow) == [{"query": f"{FIRST} {FOLLOW}", "by": "rules"}]
    assert any("四百元" in c.text for c in follow.citations)
    assert not any("四百元" in c.text for c in bare.citations)  # alone, it finds nothing of the sort
    assert not follow.llm_called


def test_with_a_chat_model_the_model_writes_the_query_from_the_history(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": False})
    server.add(text("六百元 [1]"), text('{"query": "其他城市住宿费每晚标准"}'), text("四百元 [1]"))
    first = engine.ask(ADMIN, FIRST)
    follow = engine.ask(ADMIN, FOLLOW, chat_id=first.chat_id)
    generation = server.chat_bodies()[1]["messages"]
    assert len(generation) == 1 and FIRST in generation[0]["content"] and FOLLOW in generation[0]["content"]
    assert _search_queries(follow) == [{"query": "其他城市住宿费每晚标准", "by": "model"}]
    assert any("四百元" in c.text for c in follow.citations)


def test_a_model_reply_without_the_json_falls_back_to_the_rule_and_says_so(engine, server):
    use_openai(engine, server)
    server.add(text("六百元 [1]"), text("I think you mean other cities"), text("四百元 [1]"))
    first = engine.ask(ADMIN, FIRST)
    follow = engine.ask(ADMIN, FOLLOW, chat_id=first.chat_id)
    assert _search_queries(follow) == [{"query": f"{FIRST} {FOLLOW}", "by": "rules"}]
    assert any("无法根据对话生成检索语句" in n for n in follow.notices)


def test_a_standalone_question_in_a_chat_is_searched_as_written_with_no_extra_request(engine, server):
    use_openai(engine, server)
    server.add(text("六百元 [1]"), text("三天 [1]"))
    first = engine.ask(ADMIN, FIRST)
    second = engine.ask(ADMIN, "出差乘坐飞机要提前几天申请？", chat_id=first.chat_id)
    assert server.chat_count == 2 and not _search_queries(second)


def test_strict_mode_searches_a_follow_up_as_written_without_history(engine, server):
    use_openai(engine, server)
    configure(engine, llm={"provider": "extractive"})
    first = engine.ask(ADMIN, FIRST, mode="normal")
    use_openai(engine, server)
    follow = engine.ask(ADMIN, FOLLOW, chat_id=first.chat_id, mode="strict")
    assert not _search_queries(follow) and server.request_count == 0  # no query generation, no answer call
    assert not follow.hit and not follow.llm_called


def test_the_switch_off_searches_the_message(engine):
    configure(engine, llm={"provider": "extractive"}, answering={"follow_up_search": False})
    first = engine.ask(ADMIN, FIRST)
    follow = engine.ask(ADMIN, FOLLOW, chat_id=first.chat_id)
    assert not _search_queries(follow)


def test_the_rule_reads_what_the_follow_up_points_at_in_the_previous_answer():
    answer = "未配置语言模型，以下回答直接摘录自知识库原文。\n第九条 有下列情形之一的行政诉讼案件，人民检察院应当依职权进行监督：\n（一）损害国家利益的；[1]"
    earlier = [ChatMessage("user", "哪一条规定了依职权监督的情形？"), ChatMessage("assistant", answer)]
    # "这一条" is the article the answer quoted; "下一条" / "上一条" the one after or before it
    assert rule_query("这一条的第二项是什么？", earlier) == "哪一条规定了依职权监督的情形？ 第九条 这一条的第二项是什么？"
    assert rule_query("下一条规定了什么？", earlier) == "哪一条规定了依职权监督的情形？ 第十条 下一条规定了什么？"
    assert rule_query("那上一条呢？", earlier) == "哪一条规定了依职权监督的情形？ 第八条 那上一条呢？"
    # a follow-up naming its own article puts it in the previous question's place
    earlier = [ChatMessage("user", "第十条规定了什么？"), ChatMessage("assistant", "第十条 …… [1]")]
    assert rule_query("第十一条呢？", earlier) == "第十一条规定了什么？ 第十一条呢？"
    english = [ChatMessage("user", "What does Article 8 say?"),
               ChatMessage("assistant", "No language model is configured.\nArticle 8. Business travel is booked … [1]")]
    assert rule_query("And the next article?", english) == "What does Article 8 say? Article 9 And the next article?"
    assert rule_query("Does that deadline apply abroad?", english) == \
        "What does Article 8 say? Does that deadline apply abroad?"  # the article is already named


def test_besides_and_words_of_the_previous_answer_mark_a_follow_up():
    earlier = [ChatMessage("user", "出差坐火车一般坐几等座？"), ChatMessage("assistant", "火车 | 二等座 | 行程超过四小时可乘一等座 [1]")]
    assert rule_query("除了二等座，什么情况可以坐一等座？", earlier).startswith("出差坐火车一般坐几等座？ ")
    english = [ChatMessage("user", "What is the hotel limit in a capital city?"), ChatMessage("assistant", "180 EUR [1]")]
    assert rule_query("Besides hotels, what is the daily meal limit?", english).startswith("What is the hotel limit")
    # three content words, one of them the answer's own: it leans on that answer
    overtime = [ChatMessage("user", "休息日加班怎么算？"), ChatMessage("assistant", "休息日按两倍支付，也可在三个月内安排调休。[1]")]
    assert rule_query("不要钱可以换成调休吗？", overtime) == "休息日加班怎么算？ 不要钱可以换成调休吗？"
    # the same question after an unrelated answer stands alone
    other = [ChatMessage("user", "出差伙食补助每天多少？"), ChatMessage("assistant", "每天一百元 [1]")]
    assert rule_query("不要钱可以换成调休吗？", other) == "不要钱可以换成调休吗？"
