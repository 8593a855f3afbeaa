"""A knowledge base's name is how every route addresses it (``/api/v1/kbs/{kb}``): a name no route
can reach ('a/b') is refused with the name policy's message, and a description is bounded like a
name — on the engine, the API and the CLI alike."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput
from core.knowledge import MAX_DESCRIPTION_CHARS
from tests.api.conftest import PRIVATE_KB, client


@pytest.mark.parametrize("name", ["a/b", "/lead", "trail/", "..", "."])
def test_a_name_no_route_can_address_is_refused(world, api, name):
    with client(api, world.alice_token) as http:
        reply = http.post("/api/v1/kbs", json={"name": name})
        assert reply.status_code == 422, reply.text
        assert reply.json()["error"]["code"] == "invalid_input"
        assert "knowledge base name" in reply.json()["error"]["message"]
        assert [m["id"] for m in http.get("/v1/models").json()["data"]] == ["ragdesk", f"ragdesk:{PRIVATE_KB}"]
    with pytest.raises(InvalidInput, match="knowledge base name"):
        world.engine.update_kb(world.alice, PRIVATE_KB, name=name)
    assert [kb.name for kb in world.engine.list_kbs(world.alice)] == [PRIVATE_KB]


def test_names_with_other_punctuation_stay_addressable(world, api):
    with client(api, world.alice_token) as http:
        for name in ("R&D notes", "手册 v2", "q?a", "100% #1"):
            made = http.post("/api/v1/kbs", json={"name": name})
            assert made.status_code == 201, (name, made.text)
            from urllib.parse import quote

            assert http.get(f"/api/v1/kbs/{quote(name, safe='')}").json()["name"] == name


def test_a_description_is_bounded(world, api):
    with client(api, world.alice_token) as http:
        reply = http.post("/api/v1/kbs", json={"name": "big", "description": "x" * 1_000_000})
        assert reply.status_code == 422 and "description" in reply.json()["error"]["message"]
        assert len(reply.content) < 4096
        ok = http.post("/api/v1/kbs", json={"name": "fine", "description": "y" * MAX_DESCRIPTION_CHARS})
        assert ok.status_code == 201
    with pytest.raises(InvalidInput, match="description"):
        world.engine.update_kb(world.alice, "fine", description="z" * (MAX_DESCRIPTION_CHARS + 1))
    with pytest.raises(InvalidInput, match="description"):
        world.engine.create_kb(world.alice, "other", "bidi \u202e trick")
    assert {kb.name for kb in world.engine.list_kbs(world.alice)} == {PRIVATE_KB, "fine"}
