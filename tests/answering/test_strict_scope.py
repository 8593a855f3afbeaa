"""Strict mode's scope is decided before anything is fetched or searched: the selected or
#mentioned knowledge bases, nothing else. URLs are not fetched, the chat's files and any
context provider are not used (each with a notice), and the strict tool searches that scope.
Checked at the engine (the page server's requests, the chat's collection, what was scored)
and at the fake model server (what the request carried)."""

from __future__ import annotations

import json

from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN
from core.vectorstore.base import chat_collection
from tests.answering.conftest import configure, use_openai
from tests.fakes import text, tool_call
from tests.parsers.http_fixtures import local_server

QUESTION = "一线城市住宿费每晚不超过多少？"
PAGE = "<html><body><article><h1>住宿新规</h1><p>一线城市住宿费每晚不超过九百元，由网页公布。</p></article></body></html>"
ATTACHMENT = "# 住宿补充\n\n一线城市住宿费每晚不超过八百元，此为附件内容。".encode()


def _kb_file_ids(engine) -> set[str]:
    return {f.id for f in engine.list_files(ADMIN, "policy")}


def _sent(server) -> str:
    return json.dumps(server.chat_bodies(), ensure_ascii=False)


def test_strict_does_not_fetch_a_url_reference(engine, server):
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True}, parsing={"url_allow_private": True},
              answering={"builtin_tools": False})
    server.add(text("六百元 [1]"), text("六百元 [1]"))
    with local_server() as pages:
        pages.serve("/rules.html", PAGE.encode(), "text/html; charset=utf-8")
        url = pages.url("/rules.html")
        saved = engine.ask(ADMIN, f"#{url} {QUESTION}")
        temporary = engine.ask(ADMIN, f"#{url} {QUESTION}", temporary=True)
        assert pages.hits == []  # the page server never got a request
    for answer in (saved, temporary):
        assert answer.mode == "strict" and answer.hit and not answer.error
        assert any(f"未抓取 {url}" in n for n in answer.notices)  # in the question's language
        assert {c.file_id for c in answer.citations} <= _kb_file_ids(engine) and answer.sources == ["kb"]
        assert {r["file_id"] for r in answer.retrieved} <= _kb_file_ids(engine)
    assert not engine._store.collection_exists(chat_collection(saved.chat_id))  # nothing attached to the chat
    assert "九百元" not in _sent(server) and "六百元" in _sent(server)
    # Normal mode keeps URLs: the same message fetches the page.
    configure(engine, strict={"rag_strict_mode": False})
    server.add(text("九百元 [1]"))
    with local_server() as pages:
        pages.serve("/rules.html", PAGE.encode(), "text/html; charset=utf-8")
        normal = engine.ask(ADMIN, f"#{pages.url('/rules.html')} {QUESTION}", temporary=True)
        assert pages.hits == ["/rules.html"]
    assert normal.citations[0].origin == "url" and normal.sources[0] == "url" and not normal.from_kb
    assert "九百元" in json.dumps(server.chat_bodies()[-1], ensure_ascii=False)


def test_strict_does_not_use_the_chats_attachments(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": True})
    chat = engine.create_chat(ADMIN, "with a file")
    [attached] = engine.attach_to_chat(ADMIN, chat.id, [Upload("extra.md", ATTACHMENT)])
    assert attached.status == "indexed"
    server.add(text("六百元 [1]"))
    strict = engine.ask(ADMIN, QUESTION, chat_id=chat.id, mode="strict")
    assert any("未使用此对话的附件" in n for n in strict.notices)
    assert attached.file_id not in {r["file_id"] for r in strict.retrieved}
    assert {c.file_id for c in strict.citations} <= _kb_file_ids(engine)
    assert "八百元" not in _sent(server)
    # Normal mode in the same chat uses the attachment (and says so in ``sources``).
    server.add(text("八百元 [1]"))
    normal = engine.ask(ADMIN, QUESTION, chat_id=chat.id, mode="normal")
    assert "八百元" in json.dumps(server.chat_bodies()[-1], ensure_ascii=False)
    assert "attachment" in {c.origin for c in normal.citations} and "attachment" in normal.sources


def test_strict_mention_is_the_whole_scope(engine, server):
    use_openai(engine, server)
    engine.create_kb(ADMIN, "other")
    [hotel] = engine.ingest(ADMIN, "other", [Upload("hotel.md", "# 酒店\n\n一线城市住宿费每晚不超过九百元。".encode())])
    configure(engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": False})
    server.add(text("九百元 [1]"))
    answer = engine.ask(ADMIN, f"#other {QUESTION}", temporary=True)
    assert {r["file_id"] for r in answer.retrieved} == {hotel.file_id}
    system = server.chat_bodies()[0]["messages"][0]["content"]
    assert "九百元" in system and "六百元" not in system and "travel.md" not in system


def test_strict_tool_searches_exactly_the_scope(engine, server):
    use_openai(engine, server)
    engine.create_kb(ADMIN, "other")
    engine.ingest(ADMIN, "other", [Upload("hotel.md", "# 酒店\n\n一线城市住宿费每晚不超过九百元。".encode())])
    configure(engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": True})
    # The model tries to widen the search to another knowledge base; strict keeps to #other.
    server.add(tool_call("query_knowledge_bases", {"query": "一线城市住宿费每晚标准", "knowledge_bases": ["policy"]}),
               text("九百元 [1]"))
    answer = engine.ask(ADMIN, f"#other {QUESTION}", temporary=True)
    first, second = server.chat_bodies()
    [tool] = first["tools"]
    assert tool["function"]["name"] == "query_knowledge_bases"
    assert "knowledge_bases" not in tool["function"]["parameters"]["properties"]
    tool_result = [m for m in second["messages"] if m["role"] == "tool"][0]["content"]
    assert tool_result.startswith("[2] hotel.md") and "travel.md" not in tool_result
    assert "六百元" not in json.dumps(second, ensure_ascii=False)  # no passage of the policy KB reached the model
    assert {c.source_name for c in answer.citations} <= {"hotel.md"}


class _Notes:
    """A context provider (the protocol web search implements) serving one fixed note."""

    name = "team notes"

    def __init__(self):
        self.calls: list[str] = []

    def items(self, question, settings):
        from core.answering.prompts import ContextItem

        self.calls.append(question)
        return [ContextItem(text="团队笔记：一线城市住宿费每晚不超过七百元。", source="notes", score=0.9, origin="web")]


def test_context_providers_join_normal_answers_and_never_strict_ones(engine, server):
    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": False})
    notes = _Notes()
    engine.register_context_provider(notes)
    server.add(text("七百元 [1]"), text("六百元 [1]"))
    normal = engine.ask(ADMIN, QUESTION, temporary=True, mode="normal")
    assert notes.calls == [QUESTION] and "七百元" in json.dumps(server.chat_bodies()[0], ensure_ascii=False)
    assert [c.source_name for c in normal.citations] == ["notes"] and normal.sources == ["web"]
    strict = engine.ask(ADMIN, QUESTION, temporary=True, mode="strict")
    assert notes.calls == [QUESTION]  # not called for the strict answer
    assert any("未使用 team notes" in n for n in strict.notices)
    assert "七百元" not in json.dumps(server.chat_bodies()[1], ensure_ascii=False)


def test_strict_file_mention_searches_that_file_only(engine, server):
    use_openai(engine, server)
    engine.create_kb(ADMIN, "other")
    [hotel] = engine.ingest(ADMIN, "other", [Upload("hotel.md", "# 酒店\n\n一线城市住宿费每晚不超过九百元。".encode())])
    configure(engine, strict={"rag_strict_mode": True}, answering={"builtin_tools": False})
    server.add(text("九百元 [1]"))
    # The selection is "policy"; the mentioned file lives in "other": the file is the scope.
    answer = engine.ask(ADMIN, f"#hotel.md {QUESTION}", kbs=["policy"], temporary=True)
    assert {r["file_id"] for r in answer.retrieved} == {hotel.file_id}
    assert "六百元" not in server.chat_bodies()[0]["messages"][0]["content"]
