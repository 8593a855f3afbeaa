"""#mentions resolve in a fixed order (own, shared with me, public), ambiguity and typos ask back,
and chat attachments are their chat owner's alone (admins included)."""

from __future__ import annotations

import pytest

from core.errors import NotFound
from core.ingest.service import Upload
from core.accounts.users import actor_of
from tests.answering.conftest import configure, use_openai
from tests.fakes import text, tool_call

TRUE_HANDBOOK = "# 员工手册\n\n第八条 员工年假为每年十五天。".encode()
FALSE_HANDBOOK = "# 员工手册\n\n第八条 员工年假为每年九十天。".encode()
QUESTION = "员工年假每年有几天？"


@pytest.fixture
def people(engine):
    admin = actor_of(engine.sign_up("alice", "correct horse"))  # the first account is the admin
    carol = actor_of(engine.sign_up("carol", "carol-password"))
    mallory = actor_of(engine.sign_up("mallory", "mallory-password"))
    return admin, carol, mallory


def _files(engine, actor, kb_id) -> set[str]:
    return {f.id for f in engine.list_files(actor, kb_id)}


def test_an_impostor_public_kb_does_not_hijack_a_mention(engine, people):
    admin, carol, mallory = people
    configure(engine, retrieval={"rag_min_similarity": 0.05})  # one-chunk KBs under the hash embedder score low
    real = engine.create_kb(admin, "handbook")
    engine.ingest(admin, "handbook", [Upload("leave.md", TRUE_HANDBOOK)])
    engine.share_kb(admin, "handbook", ["carol"])
    fake = engine.create_kb(mallory, "handbook", visibility="public")
    engine.ingest(mallory, fake.id, [Upload("leave.md", FALSE_HANDBOOK)])
    real_files = _files(engine, admin, real.id)
    for actor in (admin, carol):  # own beats public; shared-with-me beats public
        for mention in ("#handbook", "#leave.md"):
            answer = engine.ask(actor, f"{mention} {QUESTION}", temporary=True)
            assert answer.retrieved and {r["file_id"] for r in answer.retrieved} <= real_files, (actor.name, mention)
            assert "十五天" in answer.text and "九十天" not in answer.text
    # Someone who can read only the public one gets that one: it is theirs to read.
    dave = actor_of(engine.sign_up("dave", "dave-password"))
    answer = engine.ask(dave, f"#handbook {QUESTION}", temporary=True)
    assert {r["file_id"] for r in answer.retrieved} <= _files(engine, dave, fake.id)


def test_an_ambiguous_mention_asks_which_one_with_owners(engine, people, server):
    admin, carol, mallory = people
    use_openai(engine, server)
    kbs = []
    for owner in (admin, mallory):
        kbs.append(engine.create_kb(owner, "handbook"))
        engine.share_kb(owner, "handbook", ["carol"])
    engine.ingest(admin, kbs[0].id, [Upload("leave.md", TRUE_HANDBOOK)])
    answer = engine.ask(carol, f"#handbook {QUESTION}", temporary=True)
    assert answer.text.startswith("有多个知识库名为「handbook」")  # asked back in the question's language
    assert "所有者 alice" in answer.text and "所有者 mallory" in answer.text
    assert any("所有者 alice" in n for n in answer.notices)  # the notice too, in the question's language
    assert not answer.llm_called and server.request_count == 0
    assert "retrieval_started" not in [e.kind for e in answer.events] and answer.sources == []
    # The answer names the ids; mentioning one by id picks it.
    server.add(text("十五天 [1]"))
    chosen = engine.ask(carol, f"#{kbs[0].id} {QUESTION}", temporary=True)
    assert {r["file_id"] for r in chosen.retrieved} <= _files(engine, admin, kbs[0].id) and chosen.retrieved


def test_an_unknown_mention_says_so_and_offers_close_names(engine, people, server):
    admin, _, _ = people
    use_openai(engine, server)
    engine.create_kb(admin, "handbook")
    typo = engine.ask(admin, f"#handbok {QUESTION}", temporary=True)
    # the admin's KB and the policy KB's handbook.md file are both close
    assert typo.text == "没有名为「handbok」的知识库。你是不是想找 #handbook、#handbook.md？"
    assert "retrieval_started" not in [e.kind for e in typo.events] and server.request_count == 0
    # A hashtag like no name at all is plain text: said, and the question is answered as usual.
    server.add(text("六百元 [1]"))
    plain = engine.ask(admin, "#出差 一线城市住宿费每晚不超过多少？", temporary=True)
    assert any("没有名为「出差」的知识库或文件" in n for n in plain.notices)
    assert plain.hit and server.request_count == 1


def test_an_admin_cannot_read_another_users_chat_attachment(engine, people, server):
    admin, carol, _ = people
    chat = engine.create_chat(carol, "mine")
    [secret] = engine.attach_to_chat(carol, chat.id, [Upload("salary.md", "# 工资\n\ncarol 的月薪是两万元。".encode())])
    assert secret.status == "indexed"
    assert engine.get_file(carol, secret.file_id).name == "salary.md"  # the owner reads it
    assert engine.file_text(carol, secret.file_id) is not None
    for call in (engine.get_file, engine.file_text, engine.file_chunks):
        with pytest.raises(NotFound):
            call(admin, secret.file_id)
    assert secret.file_id not in {f.id for f in engine.list_files(admin)}
    [refused] = engine.delete_files(admin, [secret.file_id])
    assert refused.status == "failed" and "not found" in refused.error
    assert engine.get_file(carol, secret.file_id).status == "indexed"  # still there
    # Nor through the model's view-file tool.
    use_openai(engine, server)
    configure(engine, answering={"builtin_tools": True, "file_context": False})
    server.add(tool_call("view_knowledge_file", {"file": secret.file_id}), text("不知道"))
    engine.ask(admin, "carol 的月薪是多少？", temporary=True)
    tool = server.chat_bodies()[1]["messages"][-1]
    assert tool["role"] == "tool" and tool["content"] == f"error: file '{secret.file_id}' not found"
    assert "两万元" not in str(server.chat_bodies())
