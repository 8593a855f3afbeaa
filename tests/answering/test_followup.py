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
