"""The API beside the dashboard on the embedded default: the dashboard's process holds the store
and serves the hand-off; ``python -m core api``'s backend finds the store held and sends every
call there as ``api_call`` with the caller's token, which the dashboard's engine checks itself."""

from __future__ import annotations

import openai
import pytest

from core.api.app import create_app
from core.api.backend import EngineBackend, HandoffBackend, open_backend
from core.config import RuntimeConfig
from core.engine import Engine
from core.errors import InvalidInput, NotAuthenticated
from core.handoff.channel import RemoteEngine
from tests.api.conftest import FACT_EN, PRIVATE_KB, LiveServer, build_world, client


@pytest.fixture
def dashboard(data_dir, monkeypatch):
    """The dashboard's engine: it holds the embedded store and serves the hand-off."""
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("RAGDESK_EMBEDDING__MODEL", "hash-64")
    engine = Engine(RuntimeConfig.from_env(data_dir), serve_handoff=True)
    yield build_world(engine)
    engine.close()


@pytest.fixture
def handoff_api(dashboard, data_dir):
    backend = open_backend(data_dir)
    assert isinstance(backend, HandoffBackend)  # the store is held: the API did not open it
    server = LiveServer(create_app(backend))
    yield server
    server.stop()
    backend.close()


def test_the_api_answers_through_the_dashboards_engine(dashboard, handoff_api):
    ai = openai.OpenAI(base_url=f"{handoff_api.url}/v1", api_key=dashboard.alice_token, max_retries=0)
    reply = ai.chat.completions.create(model="ragdesk", messages=[
        {"role": "user", "content": "How many days per week may employees work remotely?"}])
    assert FACT_EN in reply.choices[0].message.content and reply.model_extra["citations"][0]["n"] == 1
    with client(handoff_api, dashboard.bob_token) as bob:
        assert bob.get("/api/v1/kbs").json() == []
        assert bob.get(f"/api/v1/kbs/{PRIVATE_KB}").status_code == 404
    with client(handoff_api, "rd_" + "w" * 43) as wrong:
        reply = wrong.get("/api/v1/kbs")
        assert reply.status_code == 401 and reply.json()["error"]["code"] == "not_authenticated"


def test_an_upload_goes_through_a_staged_file_and_is_indexed_by_the_dashboard(dashboard, handoff_api, data_dir):
    with client(handoff_api, dashboard.alice_token) as http:
        reply = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", params={"wait": "true"},  # polled through the hand-off
                          files=[("files", ("parking.md", b"# Parking\n\nVisitors park on level two.\n"))])
        assert reply.status_code == 200 and reply.json()["results"][0]["status"] == "indexed", reply.text
    assert "parking.md" in {f.name for f in dashboard.engine.list_files(dashboard.alice, PRIVATE_KB)}
    assert not any((data_dir / "api-uploads").iterdir())


def test_the_hand_off_never_acts_without_a_valid_token_nor_reads_files_it_did_not_stage(dashboard, data_dir, tmp_path):
    remote = RemoteEngine(data_dir)
    with pytest.raises(NotAuthenticated):
        remote.call("api_call", op="list_kbs", input={}, token="rd_" + "n" * 43)
    with pytest.raises(NotAuthenticated):
        remote.call("api_call", op="list_kbs", input={}, token="")
    outside = tmp_path / "secret.md"
    outside.write_text("# secret\n\nnot for the knowledge base\n")
    for path in (str(outside), str(data_dir / "api-uploads" / ".." / "secret.key"), "/etc/passwd"):
        with pytest.raises(InvalidInput):
            remote.call("api_call", op="upload_files", token=dashboard.alice_token,
                        input={"kb": PRIVATE_KB, "files": [{"name": "x.md", "path": path}]})
    assert {f.name for f in dashboard.engine.list_files(dashboard.alice, PRIVATE_KB)} == {"handbook.md", "travel-zh.md"}
    # the hand-off runs the operation as the token's user: bob's token sees bob's world, not the admin's
    assert remote.call("api_call", op="list_kbs", input={}, token=dashboard.bob_token) == []


def test_with_the_store_free_the_api_opens_the_engine_itself(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("RAGDESK_EMBEDDING__MODEL", "hash-64")
    backend = open_backend(data_dir)
    try:
        assert isinstance(backend, EngineBackend)
        world = build_world(backend.engine)
        server = LiveServer(create_app(backend))
        try:
            with client(server, world.alice_token) as http:
                assert [kb["name"] for kb in http.get("/api/v1/kbs").json()] == [PRIVATE_KB]
        finally:
            server.stop()
    finally:
        backend.close()
