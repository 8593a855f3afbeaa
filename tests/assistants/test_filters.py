"""An assistant's metadata filter (issue 35): saved with its preset, checked against its knowledge bases'
fields when saved (the error names the field), and applied to every question asked through it — ask,
the Strict A/B compare and the OpenAI ``assistant:<name>`` model. Strict mode treats it as part of the
scope: nothing inside it answering → the assistant's refusal text and not one request to the model.
On SQLite and PostgreSQL (the preset's new column), embedded Qdrant."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput
from core.ingest.service import Upload
from tests.assistants.conftest import fake_model
from tests.fakes.llm_server import fake_llm_server, text
from tests.metadata.conftest import LISBON, PORTO

TAXI = "Are taxi rides to the airport reimbursed?"  # only the Lisbon policy says so
HOTEL = "How much are hotel costs in Porto reimbursed per night?"
REFUSAL = "Only the Porto office's travel policy is answered here."
MODEL_SAYS = "Up to 150 euros per night [1]."


def _travel(world) -> dict[str, str]:
    e = world.engine
    e.create_kb(world.admin, "travel", visibility="public")
    results = e.ingest(world.admin, "travel", [Upload("lisbon.md", LISBON.encode()), Upload("porto.md", PORTO.encode())])
    assert all(r.status == "indexed" for r in results), results
    e.define_metadata_field(world.admin, "travel", "office", "text")
    e.define_metadata_field(world.admin, "travel", "year", "number")
    ids = {f.name: f.id for f in e.list_files(world.admin, "travel")}
    e.set_file_metadata(world.admin, ids["lisbon.md"], {"office": "Lisbon", "year": 2025})
    e.set_file_metadata(world.admin, ids["porto.md"], {"office": "Porto", "year": 2024})
    return ids


def test_a_strict_assistants_filter_is_its_scope_nothing_inside_is_refused_without_a_model_call(world):
    e = world.engine
    ids = _travel(world)
    with fake_llm_server([text(MODEL_SAYS)] * 3) as llm:
        e.save_settings(world.admin, fake_model(llm))
        porto = e.create_assistant(world.admin, "porto-desk", ["travel"], mode="strict", visibility="public",
                                   refusal_text=REFUSAL, where={"office": "Porto"})
        assert porto.where == {"office": "Porto"}
        assert e.get_assistant(world.bob, "porto-desk").where == {"office": "Porto"}  # read back from the table
        refused = e.ask_assistant(world.bob, "porto-desk", TAXI, temporary=True)
        assert refused.mode == "strict" and refused.text == REFUSAL
        assert not refused.hit and not refused.llm_called and refused.citations == []
        assert ids["lisbon.md"] not in {r["file_id"] for r in refused.retrieved}  # not even a candidate
        assert llm.chat_count == 0  # the filter refused it: no request reached the model
        # the same question through the same assistant without its filter is answered from Lisbon
        e.update_assistant(world.admin, "porto-desk", clear=["where"])
        assert e.get_assistant(world.admin, "porto-desk").where is None
        unfiltered = e.ask_assistant(world.bob, "porto-desk", TAXI, temporary=True)
        assert unfiltered.hit and {c.file_id for c in unfiltered.citations} == {ids["lisbon.md"]}
        # inside the filter: answered from the Porto file only
        e.update_assistant(world.admin, "porto-desk", where={"office": "Porto"})
        inside = e.ask_assistant(world.bob, "porto-desk", HOTEL, temporary=True)
        assert inside.hit and {c.file_id for c in inside.citations} == {ids["porto.md"]}
        assert {r["file_id"] for r in inside.retrieved} == {ids["porto.md"]}


def test_the_compare_through_an_assistant_applies_its_filter_to_both_sides(sqlite_world):
    world, e = sqlite_world, sqlite_world.engine
    ids = _travel(world)
    e.create_assistant(world.admin, "old-policies", ["travel"], mode="strict", where={"year": {"lt": 2025}})
    both = e.compare_assistant(world.admin, "old-policies", "hotel costs reimbursed per night")
    for side in (both.normal, both.strict):
        assert {r["file_id"] for r in side.retrieved} == {ids["porto.md"]}, side.retrieved
    assert not e.compare_assistant(world.admin, "old-policies", TAXI).strict.hit  # Lisbon is outside


def test_the_filter_is_checked_against_its_knowledge_bases_fields_when_saved(world):
    e = world.engine
    _travel(world)
    with pytest.raises(InvalidInput, match="'ofice'"):
        e.create_assistant(world.admin, "typo", ["travel"], where={"ofice": "Porto"})
    with pytest.raises(InvalidInput, match=r"'year' \(number\)"):
        e.create_assistant(world.admin, "bad-year", ["travel"], where={"year": "last year"})
    with pytest.raises(InvalidInput, match="'office'"):  # engineering has no such field
        e.create_assistant(world.admin, "eng", ["engineering"], where={"office": "Porto"})
    assert e.list_assistants(world.admin) == []  # nothing saved by a refused call
    e.create_assistant(world.admin, "desk", ["travel"], where={"office": ["Porto", "Lisbon"]})
    with pytest.raises(InvalidInput, match="'office'"):  # its knowledge bases change: the field must stay in them
        e.update_assistant(world.admin, "desk", kbs=["engineering"])
    assert e.get_assistant(world.admin, "desk").kbs == ["travel"]
    # an assistant over every readable knowledge base may filter on a field one of them has
    assert e.create_assistant(world.admin, "all", [], where={"office": "Lisbon"}).where == {"office": "Lisbon"}


def test_the_openai_assistant_model_answers_under_its_filter_and_refuses_another(sqlite_world):
    import openai

    from core.api.app import create_app
    from core.api.backend import EngineBackend
    from tests.api.conftest import LiveServer

    world, e = sqlite_world, sqlite_world.engine
    _travel(world)
    e.create_assistant(world.admin, "porto-desk", ["travel"], mode="strict", refusal_text=REFUSAL,
                       where={"office": "Porto"})
    token = e.create_api_token(world.bob, "t").token
    e.update_assistant(world.admin, "porto-desk", visibility="public")
    server = LiveServer(create_app(EngineBackend(e)))
    try:
        with fake_llm_server([]) as llm:
            e.save_settings(world.admin, fake_model(llm))
            client = openai.OpenAI(base_url=f"{server.url}/v1", api_key=token, max_retries=0, timeout=60)
            reply = client.chat.completions.create(model="assistant:porto-desk",
                                                   messages=[{"role": "user", "content": TAXI}])
            assert reply.choices[0].message.content == REFUSAL and llm.chat_count == 0
            with pytest.raises(openai.UnprocessableEntityError, match="own filter"):
                client.chat.completions.create(model="assistant:porto-desk", extra_body={"where": {"office": "Lisbon"}},
                                               messages=[{"role": "user", "content": TAXI}])
    finally:
        server.stop()
