"""Chunk editing over the HTTP API (routes derived from the operation registry): the owner edits,
adds, disables; a reader of a shared knowledge base sees the chunks and is refused every change."""

from __future__ import annotations

from tests.api.conftest import PRIVATE_KB, api, client, world  # noqa: F401 (fixtures)


def test_the_owner_edits_over_http_and_a_reader_is_refused(world, api):  # noqa: F811
    world.engine.share_kb(world.alice, PRIVATE_KB, ["bob"])
    file_id = world.file_ids[0]  # handbook.md
    with client(api, world.alice_token) as alice, client(api, world.bob_token) as bob:
        listing = alice.get(f"/api/v1/files/{file_id}/chunks").json()
        [remote] = [c for c in listing["chunks"] if "remotely" in c["text"]]
        path = f"/api/v1/files/{file_id}/chunks/{remote['chunk_index']}"
        reply = alice.post(path, json={"text": "Employees may work remotely two days per week.",
                                       "keywords": ["home office"]})
        assert reply.status_code == 200, reply.text
        assert reply.json()["state"] == "edited" and reply.json()["keywords"] == ["home office"]
        hits = alice.post("/api/v1/search", json={"query": "home office", "mode": "bm25", "min_score": 0}).json()["hits"]
        assert hits[0]["text"] == "Employees may work remotely two days per week."
        added = alice.post(f"/api/v1/files/{file_id}/chunks", json={"text": "Parking is free on Fridays."})
        assert added.status_code == 201 and added.json()["state"] == "added"
        assert alice.post(path + "/disable").json()["disabled"] is True
        # bob reads the shared knowledge base: he sees the chunks, and may change none of them
        assert bob.get(f"/api/v1/files/{file_id}/chunks").status_code == 200
        for method, url, body in (("POST", path, {"text": "bob's"}), ("POST", path + "/enable", None),
                                  ("POST", f"/api/v1/files/{file_id}/chunks", {"text": "bob's"}),
                                  ("GET", f"/api/v1/files/{file_id}/chunks/history", None)):
            refused = bob.request(method, url, json=body)
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied", url
        history = alice.get(f"/api/v1/files/{file_id}/chunks/history").json()
        assert [h["action"] for h in history] == ["disable", "add", "edit"]
        assert {h["actor_name"] for h in history} == {"alice"}
        bad = alice.post(path, json={"text": ""})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_input"
        assert "/api/v1/files/{file_id}/chunks/{chunk_index}" in alice.get("/openapi.json").json()["paths"]
