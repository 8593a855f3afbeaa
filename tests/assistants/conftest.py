"""An engine (hash embedder, embedded Qdrant, SQLite or PostgreSQL) with three knowledge bases written
here — an HR policy in Chinese and English (public), an engineering guide (public) and alice's
private notes — and three accounts: the admin, alice and bob (plain users)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.accounts.users import actor_of
from core.ingest.service import Upload
from core.types import Actor
from tests.chunk_edits.conftest import make

HR = """# 人事制度 HR policy

## 年假 Annual leave

员工每年享有十五天带薪年假，须提前两周申请。
Every employee has fifteen days of paid annual leave, requested two weeks ahead.

## 试用期 Probation

试用期为三个月，期间工资为正式工资的百分之八十。
"""

ENGINEERING = """# Engineering guide

## Deployments

Production deployments happen on Tuesdays and Thursdays after the change review board approves them.

## On-call

The on-call engineer answers a page within fifteen minutes, day or night.
"""

NOTES = """# Alice's notes

The secret launch codename for the spring release is Blue Heron.
"""

REFUSAL_ZH = "抱歉，人事助手只回答人事制度的问题。"


@dataclass
class World:
    engine: object
    admin: Actor
    alice: Actor
    bob: Actor


def _world(engine) -> World:
    admin = actor_of(engine.sign_up("root", "root-password-1"))  # the first account is the admin
    alice = actor_of(engine.sign_up("alice", "alice-password-1"))
    bob = actor_of(engine.sign_up("bob", "bob-password-12"))
    for owner, kb, name, text, visibility in ((admin, "hr", "hr.md", HR, "public"),
                                              (admin, "engineering", "eng.md", ENGINEERING, "public"),
                                              (alice, "alice-notes", "notes.md", NOTES, "private")):
        engine.create_kb(owner, kb, visibility=visibility)
        [result] = engine.ingest(owner, kb, [Upload(name, text.encode())])
        assert result.status == "indexed", result
    return World(engine, admin, alice, bob)


@pytest.fixture(params=["sqlite", "postgres"])
def world(request, data_dir, monkeypatch):
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    engine = make(data_dir, monkeypatch, url)
    yield _world(engine)
    engine.close()


@pytest.fixture
def sqlite_world(data_dir, monkeypatch):
    engine = make(data_dir, monkeypatch)
    yield _world(engine)
    engine.close()


def fake_model(llm) -> dict:
    return {"llm": {"provider": "openai", "base_url": llm.openai_url, "api_key": "sk-test", "model": "fake-model"}}
