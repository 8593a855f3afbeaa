"""Chats: isolation between users, temporary chats that leave nothing, chat files in their own
collection, references (#kb, #file, #URL), full-document mode."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from sqlmodel import func, select

from core.db.models import Chat, FileRecord, Job, Message
from core.errors import NotFound
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR as ADMIN
from core.vectorstore.base import chat_collection
from tests.answering.conftest import configure, knowledge, use_openai
from tests.fakes import text
from tests.parsers.http_fixtures import local_server

PAGE = "<html><head><title>食堂</title></head><body><article><h1>员工食堂规定</h1><p>员工食堂每天中午十一点半开放，晚餐时间为十七点半至十九点。</p></article></body></html>"


def counts(engine) -> dict:
    with engine._db.read() as s:
        rows = {m.__name__: s.exec(select(func.count()).select_from(m)).one() for m in (Chat, Message, FileRecord, Job)}
    rows["collections"] = sorted(engine._store.list_collections())
    rows["vectors"] = sum(engine._store.count(c) for c in rows["collections"])
    return rows


@contextmanager
def web_page(body: str):
    with local_server() as srv:
        srv.serve("/canteen.html", body.encode(), "text/html; charset=utf-8")
        yield srv.url("/canteen.html")


def test_temporary_chat_leaves_no_rows_and_no_vectors(engine):
    configure(engine, parsing={"url_allow_hosts": ["127.0.0.1"]})
    before = counts(engine)
    with web_page(PAGE) as url:
        answer = engine.ask(ADMIN, f"#{url} 员工食堂几点开放？", temporary=True)
        strict = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", temporary=True, mode="strict")
    assert "十一点半" in answer.text and answer.chat_id is None and answer.message_id is None
    assert strict.hit
    assert counts(engine) == before


def test_chats_are_private_to_their_owner(engine):
    alice = engine.actor_for(engine.sign_up("alice", "password-alice").id)
    bob = engine.actor_for(engine.sign_up("bob", "password-bob").id)
    chat = engine.create_chat(alice, "alice's chat")
    engine.ask(alice, "一线城市住宿费每晚不超过多少？", chat_id=chat.id)
    assert [c.id for c in engine.list_chats(alice)] == [chat.id]
    assert engine.list_chats(bob) == [] and engine.list_chats(bob, "住宿费") == []
    for call in (lambda: engine.chat_messages(bob, chat.id), lambda: engine.delete_chat(bob, chat.id),
                 lambda: engine.ask(bob, "还有吗？", chat_id=chat.id),
                 lambda: engine.attach_to_chat(bob, chat.id, [Upload("x.md", b"# x\n\ny")])):
        with pytest.raises(NotFound):
            call()
    assert len(engine.chat_messages(alice, chat.id)) == 2
    # alice is the installation's first account, an admin: chats stay private even to admins.
    assert alice.is_admin and not bob.is_admin
    bobs = engine.create_chat(bob, "bob's chat")
    with pytest.raises(NotFound):
        engine.chat_messages(alice, bobs.id)
    assert [c.id for c in engine.list_chats(alice)] == [chat.id]
    assert [c.id for c in engine.list_chats(alice, "住宿费")] == [chat.id]


def test_chat_files_are_searched_then_deleted_with_their_vectors(engine, server):
    use_openai(engine, server)
    chat = engine.create_chat(ADMIN, "files")
    [result] = engine.attach_to_chat(ADMIN, chat.id, [Upload("canteen.md", "# 食堂\n\n员工食堂每天中午十一点半开放。".encode())])
    assert result.status == "indexed"
    collection = chat_collection(chat.id)
    assert engine._store.count(collection) > 0
    server.add(text("十一点半 [1]"))
    answer = engine.ask(ADMIN, "员工食堂每天几点开放？", chat_id=chat.id)
    assert answer.citations[0].source_name == "canteen.md"
    # Another chat does not see these files.
    server.add(text("不知道"))
    other = engine.ask(ADMIN, "员工食堂每天几点开放？")
    assert all(r["source_name"] != "canteen.md" for r in other.retrieved)
    engine.delete_chat(ADMIN, chat.id)
    assert not engine._store.collection_exists(collection)
    with engine._db.read() as s:
        assert s.get(FileRecord, result.file_id) is None
        assert s.exec(select(Message).where(Message.chat_id == chat.id)).first() is None
    with pytest.raises(NotFound):
        engine.chat_messages(ADMIN, chat.id)


def test_url_reference_is_fetched_into_the_chat_collection(engine):
    configure(engine, parsing={"url_allow_hosts": ["127.0.0.1"]})
    with web_page(PAGE) as url:
        answer = engine.ask(ADMIN, f"#{url} 员工食堂几点开放？")
    assert "十一点半" in answer.text and answer.citations[0].source_name == url
    assert engine._store.count(chat_collection(answer.chat_id)) > 0
    # The page stays with the chat: a follow-up finds it without the reference.
    again = engine.ask(ADMIN, "员工食堂晚餐时间是几点？", chat_id=answer.chat_id)
    assert "十七点半" in again.text


def test_kb_and_file_references_narrow_the_search(engine):
    engine.create_kb(ADMIN, "other")
    engine.ingest(ADMIN, "other", [Upload("hotel.md", "# 酒店\n\n一线城市住宿费每晚不超过九百元。".encode())])
    both = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", temporary=True)
    assert {r["source_name"] for r in both.retrieved if r["passed"]} >= {"travel.md", "hotel.md"}
    only_kb = engine.ask(ADMIN, "#other 一线城市住宿费每晚不超过多少？", temporary=True)
    assert {r["source_name"] for r in only_kb.retrieved} == {"hotel.md"} and "九百元" in only_kb.text
    only_file = engine.ask(ADMIN, "#travel.md 一线城市住宿费每晚不超过多少？", temporary=True)
    assert {r["source_name"] for r in only_file.retrieved} == {"travel.md"} and "六百元" in only_file.text


def test_full_document_mode_injects_the_whole_text(engine, server):
    use_openai(engine, server)
    engine.update_kb(ADMIN, "policy", full_document=True)
    server.add(text("ok [1]"))
    answer = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", temporary=True)
    user = server.chat_bodies()[0]["messages"][-1]["content"]
    # Every article of the file, not only the retrieved chunk.
    for article in ("第一条", "第三条", "第六条"):
        assert article in user
    assert answer.citations[0].source_name in ("travel.md", "handbook.md")
    # Within the budget: a small window cuts the documents and says so.
    use_openai(engine, server, context_length=512)
    server.add(text("ok"))
    small = engine.ask(ADMIN, "一线城市住宿费每晚不超过多少？", temporary=True)
    assert any("已裁剪" in n for n in small.notices)
    assert len(server.chat_bodies()[1]["messages"][-1]["content"]) < len(user) / 2


def test_references_are_parsed_and_removed_from_the_query(engine):
    from core.answering.references import parse_references as parse

    parse_references = lambda _engine, _actor, message: parse(knowledge(engine, ADMIN), message)  # noqa: E731
    kb = engine.get_kb(ADMIN, "policy")
    video = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    refs = parse_references(engine, ADMIN, f"#policy #handbook 看看 {video}，还有 #https://example.com/a.html 和 #话题 呢")
    assert refs.kbs == [kb.id]
    assert len(refs.file_ids) == 1 and engine.get_file(ADMIN, refs.file_ids[0]).name == "handbook.md"
    assert refs.urls == ["https://example.com/a.html", video]
    assert refs.query == "看看 ，还有 和 #话题 呢"
    plain = parse_references(engine, ADMIN, "see https://youtu.be/dQw4w9WgXcQ.")
    assert plain.urls == ["https://youtu.be/dQw4w9WgXcQ"] and plain.query == "see ."
    assert parse_references(engine, ADMIN, "no references at all").urls == []


def test_an_unreachable_url_reference_is_a_notice_not_a_failure(engine):
    # Private addresses are refused unless the admin allows them: the fetch fails, the answer does not.
    for temporary in (True, False):
        answer = engine.ask(ADMIN, "#http://127.0.0.1:9/page.html 一线城市住宿费每晚不超过多少？", temporary=temporary)
        assert not answer.error and "六百元" in answer.text
        assert any(n.startswith("无法使用 http://127.0.0.1:9/page.html") for n in answer.notices)
