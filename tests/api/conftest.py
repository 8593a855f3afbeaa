"""A real API server (uvicorn on 127.0.0.1, a free port) over a real engine, and a small world:
an admin, alice (a plain user with a private knowledge base holding two facts, one in Chinese)
and bob (a plain user), each with an API token made through the engine."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import httpx
import pytest
import uvicorn

from core.api.app import create_app
from core.api.backend import EngineBackend
from tests.engine.conftest import HANDBOOK_MD, POLICY_MD, make_engine, md
from tests.security.conftest import connections  # noqa: F401 (a fixture: every connect() a test makes)

FACT_EN = "three days per week"  # HANDBOOK_MD: remote work
FACT_ZH = "六百元"  # POLICY_MD: 一线城市住宿费每人每晚不超过六百元
PRIVATE_KB = "alice-private-notes"


class LiveServer:
    """uvicorn serving ``app`` in a thread until ``stop``."""

    def __init__(self, app):
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                                    lifespan="off", server_header=False))
        self.thread = threading.Thread(target=self.server.run, name="api-test-server", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@dataclass
class World:
    engine: object
    admin: object
    alice: object
    bob: object
    admin_token: str
    alice_token: str
    bob_token: str
    kb_id: str
    file_ids: list


def build_world(engine) -> World:
    admin = engine.actor_for(engine.sign_up("root", "correct horse battery").id)  # the first account: admin
    alice = engine.actor_for(engine.sign_up("alice", "alice password 1").id)
    bob = engine.actor_for(engine.sign_up("bob", "bob password 12").id)
    kb = engine.create_kb(alice, PRIVATE_KB, "alice's own")
    results = engine.ingest(alice, PRIVATE_KB, [md("handbook.md", HANDBOOK_MD), md("travel-zh.md", POLICY_MD)])
    assert all(r.status == "indexed" for r in results), results
    return World(engine, admin, alice, bob, engine.create_api_token(admin, "t").token,
                 engine.create_api_token(alice, "t").token, engine.create_api_token(bob, "t").token,
                 kb.id, [r.file_id for r in results])


@pytest.fixture
def world(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    engine = make_engine(data_dir)
    yield build_world(engine)
    engine.close()


@pytest.fixture
def api(world):
    server = LiveServer(create_app(EngineBackend(world.engine)))
    yield server
    server.stop()


def client(api, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=api.url, headers=headers, timeout=60, trust_env=False)
