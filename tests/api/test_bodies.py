"""A body is judged before it is read: the token first, then the route's cap — over real HTTP on
loopback against the running server, with clients that lie about or never finish their bodies."""

from __future__ import annotations

import json

from tests.api.conftest import PRIVATE_KB, client
from tests.api.rawhttp import endless, request

MB = 1024 * 1024


def _json_head(token: str | None) -> dict:
    head = {"Content-Type": "application/json"}
    if token:
        head["Authorization"] = f"Bearer {token}"
    return head


def test_a_wrong_token_is_refused_before_its_body_is_read(world, api):
    # 300 MB announced, a few sent: the 401 comes without waiting for the rest
    for token in ("rd_" + "x" * 43, None):
        reply = request(api.url, "POST", "/api/v1/ask", _json_head(token), endless(), declared_length=300 * MB)
        assert reply.status == 401, reply
        assert reply.json()["error"]["code"] == "not_authenticated"
        assert reply.sent < 32 * MB  # the socket buffers, not the body


def test_a_body_over_the_routes_cap_is_413_before_it_is_read(world, api):
    head = _json_head(world.alice_token)
    declared = request(api.url, "POST", "/api/v1/ask", head, endless(), declared_length=300 * MB)
    assert declared.status == 413 and declared.json()["error"]["code"] == "body_too_large", declared
    assert declared.sent < 32 * MB
    # no length announced (chunked): refused once the cap is passed, not at the end
    streamed = request(api.url, "POST", "/api/v1/ask", head, endless(), declared_length=None, chunked=True)
    assert streamed.status == 413 and streamed.json()["error"]["code"] == "body_too_large", streamed
    assert streamed.sent < 32 * MB


def test_a_million_wrong_items_get_a_short_error(world, api):
    with client(api, world.alice_token) as http:
        many = [1] * 300_000  # ~0.9 MB of JSON, under the body cap
        for path, body in (("/api/v1/ask", {"question": "q", "kbs": many}),
                           ("/api/v1/search", {"query": "q", "kbs": many}),
                           ("/v1/chat/completions",
                            {"model": "ragdesk", "messages": [{"role": "user", "content": many}]}),
                           ("/v1/chat/completions", {"model": "ragdesk", "messages": [{"role": "user"}] * 60_000}),
                           (f"/api/v1/kbs/{PRIVATE_KB}/share", {"users": many})):
            reply = http.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})
            assert reply.status_code == 422, (path, reply.status_code)
            assert len(reply.content) < 8 * 1024, (path, len(reply.content))
            assert reply.json()["error"]["code"] == "invalid_input"
        # a key a megabyte long is named, not repeated
        reply = http.post("/api/v1/ask", json={"question": "q", "k" * 900_000: 1})
        assert reply.status_code == 422 and len(reply.content) < 8 * 1024


def test_an_upload_over_the_limit_is_not_read_to_its_end(world, api):
    """The probe's case: 150 MB sent against a 100 MB limit was read to its end (the server drained
    the rest after its 413). Here 1 MB is the limit and the client would send 150 MB."""
    world.engine.save_settings(world.admin, {"parsing": {"max_upload_mb": 1}})
    head = {"Authorization": f"Bearer {world.alice_token}", "Content-Type": "multipart/form-data; boundary=b"}
    opening = b'--b\r\nContent-Disposition: form-data; name="files"; filename="big.md"\r\n\r\n'

    def body():
        yield opening
        yield from endless()

    upload = f"/api/v1/kbs/{PRIVATE_KB}/files"
    for declared in (150 * MB, 15 * MB, None):  # over any upload's cap; under it (one file's limit decides); chunked
        reply = request(api.url, "POST", upload, head, body(), declared_length=declared, chunked=declared is None,
                        drain_probe=64 * MB)
        assert reply.status == 413, (declared, reply)
        assert reply.sent < 16 * MB and reply.after < 16 * MB, (declared, reply.sent, reply.after)
    assert not any((world.engine.config.data_dir / "api-uploads").iterdir())


def test_an_unterminated_or_malformed_multipart_body_is_refused(world, api):
    head = {"Authorization": f"Bearer {world.alice_token}", "Content-Type": "multipart/form-data; boundary=b"}
    part = (b'--b\r\nContent-Disposition: form-data; name="files"; filename="cut.md"\r\n\r\n'
            b"# cut\n\ntext that never ends\n")
    bodies = [part,  # no closing boundary at all
              part + b"\r\n--b",  # a boundary that is never finished
              b"not a multipart body at all"]
    for raw in bodies:
        reply = request(api.url, "POST", f"/api/v1/kbs/{PRIVATE_KB}/files", head, [raw], declared_length=len(raw))
        assert reply.status == 422, (raw[-20:], reply)
        assert reply.json()["error"]["code"] == "invalid_input"
    assert {f.name for f in world.engine.list_files(world.alice, PRIVATE_KB)} == {"handbook.md", "travel-zh.md"}
    assert world.engine.jobs(world.alice, active_only=True) == []
    assert not any((world.engine.config.data_dir / "api-uploads").iterdir())
