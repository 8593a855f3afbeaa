"""The REST API against a real server and engine, with httpx: what a program reaching ragdesk sees."""

from __future__ import annotations

from tests.api.conftest import FACT_EN, FACT_ZH, PRIVATE_KB, client


def test_a_user_lists_and_reads_their_knowledge_base(world, api):
    with client(api, world.alice_token) as http:
        listed = http.get("/api/v1/kbs")
        assert listed.status_code == 200
        assert [kb["name"] for kb in listed.json()] == [PRIVATE_KB]
        detail = http.get(f"/api/v1/kbs/{PRIVATE_KB}").json()
        assert detail["id"] == world.kb_id and detail["files"] == 2 and detail["chunks"] > 0
        assert "owner_id" not in detail and "collection" not in detail


def test_ask_answers_with_the_fact_and_its_citation(world, api):
    with client(api, world.alice_token) as http:
        reply = http.post("/api/v1/ask", json={"question": "How many days per week may employees work remotely?"})
        assert reply.status_code == 200, reply.text
        answer = reply.json()
        assert FACT_EN in answer["text"] and "[1]" in answer["text"]
        assert answer["citations"][0]["source_name"] == "handbook.md" and answer["hit"] is True
        zh = http.post("/api/v1/ask", json={"question": "一线城市住宿费每晚标准是多少？"}).json()
        assert FACT_ZH in zh["text"] and zh["citations"][0]["source_name"] == "travel-zh.md"


def test_no_token_or_a_wrong_one_is_401_in_json(world, api):
    for token in (None, "rd_" + "x" * 43, "not-even-a-token"):
        with client(api, token) as http:
            for method, path in (("GET", "/api/v1/kbs"), ("POST", "/api/v1/ask"), ("GET", "/v1/models")):
                reply = http.request(method, path, json={"question": "q"} if method == "POST" else None)
                assert reply.status_code == 401, (token, path, reply.text)
                assert reply.json()["error"]["code"] == "not_authenticated"
                assert reply.headers["www-authenticate"] == "Bearer"


def test_a_revoked_token_stops_working(world, api):
    made = world.engine.create_api_token(world.bob, "short-lived")
    with client(api, made.token) as http:
        assert http.get("/api/v1/kbs").status_code == 200
        world.engine.revoke_api_token(world.bob, made.id)
        assert http.get("/api/v1/kbs").status_code == 401


def test_a_plain_user_cannot_list_or_read_another_users_private_kb(world, api):
    with client(api, world.bob_token) as http:
        assert http.get("/api/v1/kbs").json() == []
        for path in (f"/api/v1/kbs/{PRIVATE_KB}", f"/api/v1/kbs/{world.kb_id}", f"/api/v1/kbs/{world.kb_id}/files",
                     f"/api/v1/files/{world.file_ids[0]}"):
            reply = http.get(path)
            # not found, exactly as for a name that does not exist: the private name does not leak
            assert reply.status_code == 404 and reply.json()["error"]["code"] == "not_found", path
        assert http.get("/api/v1/kbs/no-such-kb").json()["error"]["code"] == "not_found"
        asked = http.post("/api/v1/ask", json={"question": "How many days per week may employees work remotely?"}).json()
        assert FACT_EN not in asked["text"] and asked["citations"] == []
        scoped = http.post("/api/v1/search", json={"query": "remote work", "kbs": [PRIVATE_KB]})
        assert scoped.status_code == 404


def test_knowledge_base_lifecycle_and_sharing(world, api):
    with client(api, world.bob_token) as bob, client(api, world.alice_token) as alice:
        made = bob.post("/api/v1/kbs", json={"name": "bob-kb", "description": "mine"})
        assert made.status_code == 201 and made.json()["visibility"] == "private"
        assert bob.post("/api/v1/kbs", json={"name": "bob-kb"}).json()["error"]["code"] == "already_exists"
        assert alice.get("/api/v1/kbs/bob-kb").status_code == 404
        shared = bob.post("/api/v1/kbs/bob-kb/share", json={"users": ["alice"]})
        assert shared.json() == {"kb": "bob-kb", "shared_with": ["alice"]}
        assert alice.get("/api/v1/kbs/bob-kb").json()["visibility"] == "shared"
        # alice may read it, not delete or share it: the engine says forbidden now that she can see it
        assert alice.delete("/api/v1/kbs/bob-kb").status_code == 403
        assert alice.post("/api/v1/kbs/bob-kb/share", json={"users": []}).status_code == 403
        assert bob.delete("/api/v1/kbs/bob-kb").json() == {"deleted": "bob-kb"}
        assert bob.get("/api/v1/kbs").json() == []


def test_invalid_input_is_422_with_the_field_named(world, api):
    with client(api, world.alice_token) as http:
        for body in ({"name": ""}, {"name": "x", "visibility": "everyone"}, {"name": "x", "colour": "red"}):
            reply = http.post("/api/v1/kbs", json=body)
            assert reply.status_code == 422 and reply.json()["error"]["code"] == "invalid_input", body
        reply = http.post("/api/v1/ask", json={"question": "q", "mode": "loose"})
        assert reply.status_code == 422 and "mode" in reply.json()["error"]["message"]
        assert http.get("/api/v1/no-such-route").json()["error"]["code"] == "not_found"
        assert world.engine.list_kbs(world.alice)[0].name == PRIVATE_KB  # nothing else lost


def test_upload_index_status_list_and_delete_files(world, api):
    doc = "# Parking\n\nVisitors park on level two of the north garage, spaces 200 to 240.\n"
    with client(api, world.alice_token) as http:
        reply = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", params={"wait": "true"},
                          files=[("files", ("parking.md", doc.encode(), "text/markdown")),
                                 ("files", ("停车.md", "# 停车\n\n访客停在北车库二层。\n".encode(), "text/markdown"))])
        assert reply.status_code == 200, reply.text
        results = reply.json()["results"]
        assert [r["name"] for r in results] == ["parking.md", "停车.md"]
        assert all(r["status"] == "indexed" and r["chunks"] > 0 and r["job_id"] for r in results)
        status = http.get(f"/api/v1/files/{results[0]['file_id']}").json()
        assert status["status"] == "indexed" and status["name"] == "parking.md"
        names = [f["name"] for f in http.get(f"/api/v1/kbs/{PRIVATE_KB}/files", params={"status": "indexed"}).json()]
        assert set(names) == {"parking.md", "停车.md", "handbook.md", "travel-zh.md"}
        hits = http.post("/api/v1/search", json={"query": "visitors park on level two of the north garage", "kbs": [PRIVATE_KB]}).json()["hits"]
        assert hits[0]["source_name"] == "parking.md"
        job = http.get(f"/api/v1/jobs/{results[0]['job_id']}").json()
        assert job["kind"] == "ingest" and job["state"] == "done"
        assert results[0]["job_id"] in [j["id"] for j in http.get("/api/v1/jobs").json()]
        deleted = http.delete(f"/api/v1/files/{results[0]['file_id']}").json()
        assert deleted["status"] == "deleted"
        assert http.get(f"/api/v1/files/{results[0]['file_id']}").status_code == 404
    assert not any((world.engine.config.data_dir / "api-uploads").iterdir())  # staged parts removed


def test_another_user_cannot_upload_into_or_delete_from_a_private_kb(world, api):
    with client(api, world.bob_token) as http:
        reply = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", files=[("files", ("x.md", b"# x\n\nplanted text\n"))])
        assert reply.status_code == 404
        assert http.delete(f"/api/v1/files/{world.file_ids[0]}").status_code == 404
    assert {f.name for f in world.engine.list_files(world.alice, PRIVATE_KB)} == {"handbook.md", "travel-zh.md"}


def test_an_oversized_upload_is_413_before_the_body_is_read(world, api):
    world.engine.save_settings(world.admin, {"parsing": {"max_upload_mb": 1}})
    big = b"a" * (3 * 1024 * 1024)
    with client(api, world.alice_token) as http:
        reply = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", files=[("files", ("big.md", big))])
        assert reply.status_code == 413 and reply.json()["error"]["code"] == "file_too_large"

        def body():  # no Content-Length: the size is only known while streaming; we stop sending if refused
            yield b"--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.md\"\r\n\r\n"
            for _ in range(40):
                yield b"a" * 65536
            yield b"\r\n--b--\r\n"

        streamed = http.post(f"/api/v1/kbs/{PRIVATE_KB}/files", content=body(),
                             headers={"Content-Type": "multipart/form-data; boundary=b"})
        assert streamed.status_code == 413
    assert len(world.engine.list_files(world.alice, PRIVATE_KB)) == 2
    assert not any((world.engine.config.data_dir / "api-uploads").iterdir())


def test_chats_create_ask_and_read_back(world, api):
    with client(api, world.alice_token) as http, client(api, world.bob_token) as bob:
        chat = http.post("/api/v1/chats", json={"title": "remote"}).json()
        answer = http.post(f"/api/v1/chats/{chat['id']}/messages",
                           json={"question": "How many days per week may employees work remotely?"}).json()
        assert answer["chat_id"] == chat["id"] and FACT_EN in answer["text"]
        messages = http.get(f"/api/v1/chats/{chat['id']}/messages").json()
        assert [m["role"] for m in messages] == ["user", "assistant"] and messages[1]["citations"]
        assert [c["id"] for c in http.get("/api/v1/chats").json()] == [chat["id"]]
        assert bob.get("/api/v1/chats").json() == []
        assert bob.get(f"/api/v1/chats/{chat['id']}/messages").status_code == 404
        assert bob.post(f"/api/v1/chats/{chat['id']}/messages", json={"question": "hi"}).status_code == 404


def test_the_openapi_schema_lists_every_operation_and_the_docs_load_nothing_from_other_hosts(world, api):
    from core.api.registry import operations

    with client(api, None) as http:
        schema = http.get("/openapi.json").json()
        declared = {(op.path, op.method.lower()) for op in operations().values()}
        listed = {(path, method) for path, item in schema["paths"].items() for method in item}
        assert declared == listed
        assert "API token" in schema["components"]["securitySchemes"]
        html = http.get("/docs").text
        assert "http://" not in html and "https://" not in html.replace("https://github.com", "")
        assert http.get("/api/docs-assets/swagger-ui-bundle.js").status_code == 200
        # ReDoc's bundle fetches its logo from a CDN: neither its page nor its script is served
        assert http.get("/redoc").status_code == 404
        assert http.get("/api/docs-assets/redoc.standalone.js").status_code == 404
