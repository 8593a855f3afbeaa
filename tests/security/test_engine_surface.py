"""Threat: a signed-in plain user calls the engine (through any page, or any future one) with
another user's ids and names, to read, change or delete what is not theirs.

The test walks EVERY public Engine method, each a declared operation (core/services/). A method that takes an Actor is
called as the plain user "mallory" against the victim's private knowledge base, file, chat and
job — once per parameter that names an object — and must refuse (PermissionDenied / NotFound)
or return nothing of the victim's (no content, no names), and leave the victim's objects as
they were. An operation without an Actor must say why in its declaration. So a method added
later, or a parameter nobody thought about, fails here until someone decides."""

from __future__ import annotations

import dataclasses
import inspect
import json
from concurrent.futures import Future

import pytest

from core.services.outputs import StagedFile
from core.services.openai_models import ChatMessageIn

from core.engine import OPERATIONS, Engine
from core.errors import CoreError, NotFound, PermissionDenied
from core.ingest.service import Upload
from core.settings.store import SECRET_MASK
from core.types import SYSTEM_ACTOR, Actor
from tests.engine.conftest import make_engine

CANARY = "zebracanary"
VICTIM_KB, VICTIM_FILE, VICTIM_CHAT = "victim-secret-kb", "victim-notes.md", "victim private chat"
VICTIM_DOC = f"# Notes\n\nThe {CANARY} remote work policy: twelve days per quarter, approved by Ada.\n"

# Public Engine methods that are not operations: the process's own lifecycle. Every other public
# method is an operation a service declares (core/services/declare.py): one that takes no Actor
# says why that is safe in its declaration (``why``), and this test checks it says something.
LIFECYCLE = {
    "open": "constructor", "close": "the process's own lifecycle",
    "start_workers": "the process's own queue workers (each job runs as its owner, checked by the engine call it makes)",
    "stop_workers": "the process's own lifecycle",
}

MALLORY = Actor(user_id="u-mallory", role="user", name="mallory")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    data = tmp_path_factory.mktemp("surface") / "data"
    import os

    for var in ("DATABASE_URL", "QDRANT_URL"):
        os.environ.pop(var, None)
    engine = make_engine(data)
    # DingTalk's API at a loopback port nobody opened: every DingTalk call is refused before a packet
    engine.save_settings(SYSTEM_ACTOR, {"sources": {"kinds": {"dingtalk": {"base_url": "http://127.0.0.1:9"}}}})
    engine.sign_up("root-admin", "correct horse battery")
    victim_row = engine.sign_up("victim", "correct horse battery")
    mallory_row = engine.sign_up("mallory", "correct horse battery")
    victim = engine.actor_for(victim_row.id)
    mallory = engine.actor_for(mallory_row.id)
    kb = engine.create_kb(victim, VICTIM_KB, "victim's private notes")
    [indexed] = engine.ingest(victim, VICTIM_KB, [Upload(VICTIM_FILE, VICTIM_DOC.encode())])
    chat = engine.create_chat(victim, VICTIM_CHAT)
    engine.ask(victim, f"What is the {CANARY} policy?", chat_id=chat.id, kbs=[kb.id])
    engine.attach_to_chat(victim, chat.id, [Upload("victim-attachment.md", f"{CANARY} attachment body".encode())])
    [job] = engine.jobs(victim, ids=[indexed.job_id])
    engine.create_kb(mallory, "mallory-own")
    message = engine.chat_messages(victim, chat.id)[-1]
    curated = engine.add_curated(victim, VICTIM_KB, f"What does {CANARY} mean?", f"The {CANARY} approved answer.")
    token = engine.create_api_token(victim, "victim's laptop")
    assistant = engine.create_assistant(victim, "victim-assistant", [kb.id], refusal_text=f"{CANARY} refusal")
    ids = {"assistant": assistant.id, "kb": kb.id, "file": indexed.file_id, "chat": chat.id, "job": job.id, "message": message.id,
           "source": "src-of-the-victim", "curated": curated.id, "token": token.id, "token_secret": token.token}
    yield engine, victim, mallory, ids
    engine.close()


def _victim_args(name: str, ids: dict) -> object:
    """The value of a parameter that points at the victim's object (None: not an object parameter)."""
    return {
        "kb": ids["kb"], "ref": ids["kb"], "kbs": [ids["kb"]], "file_id": ids["file"], "file_ids": [ids["file"]],
        "chat_id": ids["chat"], "job_id": ids["job"], "ids": [ids["job"]], "job_ids": [ids["job"]], "user_name": "victim",
        "user_names": ["mallory"], "message_id": ids["message"], "message_ids": [ids["message"]],
        "source_id": ids["source"], "entry_id": ids["curated"], "token_id": ids["token"],
        "model": f"ragdesk:{ids['kb']}",  # openai_chat: the knowledge base is named in the model
        "assistant": ids["assistant"],  # assistants (issue 35)
    }.get(name)


ASKED = "remote work policy: how many days per quarter?"  # matches the victim's text, without the canary
# Plain (non-object) arguments by parameter name.
PLAIN_ARGS = {
    "name": "mallory-made", "description": "x", "visibility": "public", "question": ASKED,
    "questions": [ASKED], "query": ASKED, "title": "x", "role": "admin", "language": "en",
    "patch": {"llm": {"api_key": "stolen"}}, "uploads": [Upload("m.md", b"# mallory\n\nmallory text")],
    "paths": ["/etc/hostname"], "repair": True, "status": None, "active_only": False, "mode": None,
    "top_k": None, "min_score": 0.0, "temporary": False, "progress": None, "on_event": None, "settings": None,
    "full_document": True,  # update_kb
    "web": False, "old_password": "correct horse battery", "new_password": "mallory's new passphrase",
    "disabled": True, "rating": 1, "comment": "x", "override": {"chunk_size": 300}, "watch": False,
    "folder_id": None, "limit": 5, "kind": None, "trigger": "manual", "code": "x", "state": "x",
    "refresh_token": "a-token-of-mallory", "urls": ["http://127.0.0.1:9/never-fetched"],
    "answer": "mallory's answer", "approved_by": None, "approved_at": None,  # curated answers
    "data": b"question,answer\nmallory?,mallory.\n",
    "source_kind": "web", "config": {"urls": ["http://127.0.0.1:9/never-fetched"]},  # add_source (any kind)
    "label": "mallory's", "expires_days": None, "password": "mallory's passphrase",  # API tokens, accounts
    "passage": ASKED, "page": None, "slide": None, "heading_path": (),  # citation_view
    "timeout": 1.0,  # wait_jobs
    "key": "llm.api_key", "value": "stolen",  # setting, save_setting
    "path": "/etc", "url": "http://127.0.0.1:9/never-fetched/", "username": "mallory",  # folder and WebDAV sources
    "history": (("user", ASKED), ("assistant", "x")),  # ask: a temporary question's conversation
    "batch": None,  # compare_scored: the question alone (a plain user is refused the compare either way)
    "messages": [ChatMessageIn(role="user", content=ASKED)], "stream": False,  # openai_chat
    "files": [StagedFile(name="m.md", path="/nowhere/up-0")],  # upload_staged: the knowledge base is checked first
    "chunk_index": 0, "text": "mallory's text", "keywords": ["mallory"],  # chunk editing
    # metadata (core/metadata/): a filter aimed at the victim's file only narrows what mallory may read
    "where": {"file_name": VICTIM_FILE}, "filter": None, "values": {"office": "mallory's"},
    "app_key": "mallorykey", "app_secret": "mallory's secret", "operator_id": "mallory",  # DingTalk sources
    "workspace_id": "ws-of-mallory",
    "strict_min_similarity": 0.0, "normal_min_similarity": 0.0, "prompt": None,  # assistants
    "refusal_text": "mallory's", "shared_with": ["mallory"], "clear": None,
    "user": "victim", "search": CANARY,  # every user's chats (the CLI's local operator alone)
    # gdrive_sync: its own sources (the scheduler's pass, due=True, is refused to a plain user:
    # tests/gdrive/test_import_sync.py)
    "due": False,
}


def _public_methods() -> dict[str, inspect.Signature]:
    return {n: inspect.signature(f) for n, f in inspect.getmembers(Engine, callable)
            if not n.startswith("_")}


def _calls(name: str, sig: inspect.Signature, ids: dict):
    """Keyword sets for one method: one per object parameter aimed at the victim, plus one
    with no object named (the method's own default scope) when that is possible."""
    params = [p for p in sig.parameters.values() if p.name not in ("self", "actor")]
    objects = [p for p in params if _victim_args(p.name, ids) is not None]
    unknown = [p.name for p in params if p.name not in PLAIN_ARGS and _victim_args(p.name, ids) is None]
    assert not unknown, f"Engine.{name}: no recipe for parameter(s) {unknown}: add one to this test"
    base = {p.name: PLAIN_ARGS[p.name] for p in params if p.name in PLAIN_ARGS and p.kind is not p.VAR_KEYWORD
            and (p.default is inspect.Parameter.empty or PLAIN_ARGS[p.name] is not None)}
    for p in params:
        if p.kind is p.VAR_KEYWORD:
            base.update(PLAIN_ARGS[p.name])
    required_objects = {p.name: _victim_args(p.name, ids) for p in objects if p.default is inspect.Parameter.empty}
    variants = [{**base, **required_objects, p.name: _victim_args(p.name, ids)} for p in objects]
    if not required_objects:
        variants.append(dict(base))
    return variants


def _shown(value) -> str:
    if isinstance(value, Future):
        value = value.result(timeout=60)
    if dataclasses.is_dataclass(value):
        value = dataclasses.asdict(value)
    return json.dumps(value, default=repr, ensure_ascii=False)


def _victim_intact(engine: Engine, victim: Actor, ids: dict) -> None:
    kb = engine.get_kb(victim, ids["kb"])
    assert (kb.name, kb.visibility) == (VICTIM_KB, "private") and engine.shared_with(victim, ids["kb"]) == []
    assert engine.get_file(victim, ids["file"]).status == "indexed"
    mine = engine.get_assistant(victim, ids["assistant"])
    assert (mine.name, mine.visibility, mine.shared_with, mine.kbs) == ("victim-assistant", "private", [], [VICTIM_KB])
    assert engine.search(victim, CANARY, [ids["kb"]], min_score=0.0).hits
    assert len(engine.chat_messages(victim, ids["chat"])) >= 2
    assert not engine.jobs(victim, ids=[ids["job"]])[0].cancel_requested
    assert engine._settings().llm.api_key.get_secret_value() != "stolen"
    assert all(u.role == "user" for u in engine.list_users(SYSTEM_ACTOR) if u.name in ("victim", "mallory"))
    assert [t.id for t in engine.list_api_tokens(victim)] == [ids["token"]]
    assert engine.actor_for_api_token(ids["token_secret"]).user_id == victim.user_id


def test_every_method_is_a_declared_operation_that_checks_the_actor_or_says_why_not(world):
    methods = _public_methods()
    undeclared = set(methods) - set(OPERATIONS) - set(LIFECYCLE)
    assert not undeclared, f"public Engine methods that are no declared operation: {sorted(undeclared)}"
    for name, op in OPERATIONS.items():
        takes_actor = "actor" in methods[name].parameters
        if op.access == "open":
            assert not takes_actor and len(op.why) > 8, f"{name}: an open operation takes no actor and says why"
        else:
            assert takes_actor, f"{name}: a {op.access} operation takes the actor asking"


def test_admin_operations_refuse_a_plain_user_before_they_run(world):
    engine, victim, mallory, ids = world
    admin_ops = [op for op in OPERATIONS.values() if op.access == "admin"]
    assert {"save_settings", "save_setting", "setting", "ingest_paths", "submit_repair", "doctor",
            "test_llm"} <= {op.name for op in admin_ops}
    for op in admin_ops:
        for kwargs in _calls(op.name, inspect.signature(getattr(Engine, op.name)), ids):
            with pytest.raises(PermissionDenied, match="only an admin"):
                getattr(engine, op.name)(mallory, **kwargs)
    _victim_intact(engine, victim, ids)


def test_a_plain_user_gets_nothing_of_another_users_objects(world):
    engine, victim, mallory, ids = world
    checked = 0
    for name, sig in sorted(_public_methods().items()):
        if "actor" not in sig.parameters:
            continue
        for kwargs in _calls(name, sig, ids):
            try:
                result = getattr(engine, name)(mallory, **kwargs)
            except (PermissionDenied, NotFound):
                result = None
            except CoreError as exc:  # any other refusal (not configured, invalid...): its words must not leak either
                result = exc.message
            shown = _shown(result)
            for secret in (CANARY, VICTIM_KB, VICTIM_FILE, VICTIM_CHAT, "victim-attachment", ids["token_secret"],
                           "victim's laptop"):
                assert secret not in shown, f"Engine.{name}({sorted(kwargs)}) showed {secret!r} to another user: {shown[:300]}"
            _victim_intact(engine, victim, ids)
            checked += 1
    assert checked >= 40


def test_settings_leave_the_engine_masked(world, monkeypatch):
    engine, victim, mallory, ids = world
    engine.save_settings(SYSTEM_ACTOR, {"llm": {"api_key": "sk-surface-9911"}, "gdrive": {"client_secret": "gd-secret-77"}})
    monkeypatch.setenv("RAGDESK_WEB_SEARCH__TAVILY_API_KEY", "tv-secret-55")
    outputs = [engine.settings().model_dump(mode="json"), engine.settings_masked(), engine.settings_overridden(), engine.status(),
               engine.setting(SYSTEM_ACTOR), engine.setting(SYSTEM_ACTOR, "llm.api_key"),
               engine.save_setting(SYSTEM_ACTOR, "llm.api_key", "sk-surface-9911")]
    text = json.dumps(outputs)
    assert "sk-surface-9911" not in text and "gd-secret-77" not in text and "tv-secret-55" not in text
    assert engine.settings().llm.api_key.get_secret_value() == SECRET_MASK
    assert engine._settings().llm.api_key.get_secret_value() == "sk-surface-9911"  # the raw model stays inside core


def test_ingest_paths_is_for_admins_only(world):
    engine, victim, mallory, ids = world
    with pytest.raises(PermissionDenied):
        engine.ingest_paths(mallory, "mallory-own", ["/etc/hostname"])
    assert engine.list_files(mallory, "mallory-own") == []
