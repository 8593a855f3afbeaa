"""Metadata over the HTTP API (a real server, per-user tokens): fields, values, the CSV import,
and the filter as ``where`` in search and ask and as ``where``/``filter`` in the OpenAI-compatible
body (sent by the real ``openai`` client)."""

from __future__ import annotations

import openai

from tests.api.conftest import FACT_EN, FACT_ZH, PRIVATE_KB, api, client, world  # noqa: F401 (fixtures)

REMOTE = "How many days per week may employees work remotely?"


def _setup(world, api):  # noqa: F811
    c = client(api, world.alice_token)
    made = c.post(f"/api/v1/kbs/{PRIVATE_KB}/fields", json={"name": "部门", "kind": "text"})
    assert made.status_code == 201 and made.json() == {"name": "部门", "kind": "text", "auto": False}
    assert c.post(f"/api/v1/kbs/{PRIVATE_KB}/fields", json={"name": "year", "kind": "number"}).status_code == 201
    handbook, travel = world.file_ids
    r = c.put(f"/api/v1/files/{handbook}/metadata", json={"values": {"部门": "人事", "year": 2025}})
    assert r.status_code == 200 and r.json()["values"]["year"] == 2025
    report = c.post(f"/api/v1/kbs/{PRIVATE_KB}/metadata/import",
                    json={"csv": "file,部门,year\ntravel-zh.md,财务,2024\nnope.md,x,1\n"})
    assert report.status_code == 200
    assert report.json() == {"updated": 1, "errors": [{"line": 3, "message": "no file 'nope.md' in this knowledge base"}]}
    return c, handbook, travel


def test_fields_values_and_search_with_where(world, api):  # noqa: F811
    c, handbook, travel = _setup(world, api)
    names = {f["name"] for f in c.get(f"/api/v1/kbs/{PRIVATE_KB}/fields").json()}
    assert {"部门", "year", "file_name", "modified"} <= names
    assert c.get(f"/api/v1/files/{travel}/metadata").json()["values"]["部门"] == "财务"
    hits = c.post("/api/v1/search", json={"query": REMOTE, "mode": "dense", "min_score": 0,
                                          "where": {"部门": "财务"}}).json()["hits"]
    assert hits and {h["source_name"] for h in hits} == {"travel-zh.md"}
    hits = c.post("/api/v1/search", json={"query": REMOTE, "mode": "dense", "min_score": 0,
                                          "where": {"year": {"gte": 2025}}}).json()["hits"]
    assert {h["source_name"] for h in hits} == {"handbook.md"}
    bad = c.post("/api/v1/search", json={"query": REMOTE, "where": {"year": "soon"}})
    assert bad.status_code in (400, 422) and "not a number" in bad.text
    assert c.delete(f"/api/v1/kbs/{PRIVATE_KB}/fields", params={"name": "year"}).json() == {"deleted": "year"}
    assert "year" not in {f["name"] for f in c.get(f"/api/v1/kbs/{PRIVATE_KB}/fields").json()}


def test_another_user_cannot_see_or_change_a_private_kbs_metadata(world, api):  # noqa: F811
    _, handbook, _ = _setup(world, api)
    b = client(api, world.bob_token)
    assert b.get(f"/api/v1/kbs/{PRIVATE_KB}/fields").status_code == 404
    assert b.post(f"/api/v1/kbs/{PRIVATE_KB}/fields", json={"name": "x", "kind": "text"}).status_code == 404
    assert b.get(f"/api/v1/files/{handbook}/metadata").status_code == 404
    assert b.put(f"/api/v1/files/{handbook}/metadata", json={"values": {"部门": "x"}}).status_code == 404
    # bob's filter on alice's field finds nothing he may read: an unknown field for him
    assert b.post("/api/v1/search", json={"query": REMOTE, "where": {"部门": "人事"}}).status_code in (400, 422)


def test_ask_and_the_openai_endpoint_take_the_filter_and_strict_mode_refuses_outside_it(world, api):  # noqa: F811
    c, _, _ = _setup(world, api)
    world.engine.save_settings(world.admin, {"strict": {"rag_strict_mode": True}})
    inside = c.post("/api/v1/ask", json={"question": REMOTE, "where": {"部门": "人事"}}).json()
    assert inside["hit"] and FACT_EN in inside["text"]
    outside = c.post("/api/v1/ask", json={"question": REMOTE, "where": {"部门": "财务"}}).json()
    assert not outside["hit"] and not outside["llm_called"] and not outside["citations"]
    oc = openai.OpenAI(base_url=f"{api.url}/v1", api_key=world.alice_token, max_retries=0, timeout=60)
    messages = [{"role": "user", "content": REMOTE}]
    for key in ("where", "filter"):
        refused = oc.chat.completions.create(model="ragdesk", messages=messages, extra_body={key: {"部门": "财务"}})
        facts = refused.model_extra["ragdesk"]
        assert not facts["hit"] and not facts["llm_called"] and refused.model_extra["citations"] == []
        answered = oc.chat.completions.create(model="ragdesk", messages=messages, extra_body={key: {"部门": "人事"}})
        assert FACT_EN in answered.choices[0].message.content
    zh = oc.chat.completions.create(model="ragdesk", messages=[{"role": "user", "content": "一线城市住宿费每晚不超过多少？"}],
                                    extra_body={"where": {"部门": "财务"}})
    assert FACT_ZH in zh.choices[0].message.content
