"""The facts beside an answer over the API (issue 36): a refusal is not "from the knowledge
base", and a passage running over a page end is located on both pages."""

from __future__ import annotations

from tests.api.conftest import client

OFF_TOPIC = "What is the boiling point of liquid nitrogen on Neptune?"


def test_a_no_hit_refusal_is_not_from_the_knowledge_base(world, api):
    with client(api, world.admin_token) as http:
        for mode in ("strict", "normal"):
            reply = http.post("/api/v1/ask", json={"question": OFF_TOPIC, "mode": mode})
            assert reply.status_code == 200, reply.text
            answer = reply.json()
            assert answer["hit"] is False and answer["citations"] == [], (mode, answer)
            assert answer["from_kb"] is False, (mode, answer)
        covered = http.post("/api/v1/ask", json={"question": "How many days per week may employees work remotely?",
                                                 "mode": "strict"}).json()
        assert covered["hit"] is True and covered["from_kb"] is True


def test_a_passage_running_onto_the_next_page_is_located_on_both(world, api):
    from core.ingest.service import Upload
    from tests.parsers.pdf_maker import Page, make_pdf

    pdf = make_pdf([Page().text(72, 80, "Visitor badges policy: every visitor badge is collected at reception and"),
                    Page().text(72, 80, "returned to the security desk before the visitor leaves the building.")])
    kb = world.engine.create_kb(world.admin, "visitors")
    assert world.engine.ingest(world.admin, kb.id, [Upload("visitors.pdf", pdf)])[0].status == "indexed"
    with client(api, world.admin_token) as http:
        answer = http.post("/api/v1/ask", json={"question": "Where are visitor badges returned before the visitor leaves?",
                                                "kbs": ["visitors"], "mode": "normal"}).json()
    assert answer["citations"], answer
    assert answer["citations"][0]["location"] == "pp. 1–2", answer["citations"][0]
