"""The fake server's own protocol surface that the providers do not exercise (plain HTTP)."""

from __future__ import annotations

import httpx

from tests.fakes import fake_llm_server, text, tool_call


def test_non_streaming_openai_and_ollama_replies_and_the_request_log():
    with fake_llm_server([text("你好"), tool_call("kb", {"q": "年假"}), text("ok")], models=["m"]) as srv:
        with httpx.Client(base_url=srv.url) as http:
            r1 = http.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}).json()
            r2 = http.post("/v1/chat/completions", json={"model": "m", "messages": []}).json()
            r3 = http.post("/api/chat", json={"model": "m", "messages": [], "stream": False}).json()
            exhausted = http.post("/api/chat", json={"model": "m", "messages": [], "stream": False})
            tags = http.get("/api/tags").json()
    assert r1["choices"][0]["message"] == {"role": "assistant", "content": "你好"}
    assert r2["choices"][0]["finish_reason"] == "tool_calls"
    assert r2["choices"][0]["message"]["tool_calls"][0]["function"] == {"name": "kb", "arguments": '{"q": "年假"}'}
    assert r3["message"]["content"] == "ok" and r3["done"] is True
    assert exhausted.status_code == 500 and "script exhausted" in exhausted.json()["error"]
    assert [m["name"] for m in tags["models"]] == ["m"]
    assert srv.chat_count == 4 and srv.request_count == 5
    assert srv.bodies("/v1/chat/completions")[0]["messages"] == [{"role": "user", "content": "hi"}]


from tests.fakes import llm_server  # noqa: E402,F401  (the reusable pytest fixture)


def test_the_fixture_starts_empty_and_takes_replies(llm_server):  # noqa: F811
    llm_server.add(text("一"), text("二"))
    with httpx.Client(base_url=llm_server.url) as http:
        got = [http.post("/api/chat", json={"model": "fake-model", "messages": [], "stream": False}).json()["message"]["content"]
               for _ in range(2)]
    assert got == ["一", "二"] and llm_server.chat_count == 2
