"""Strict A/B page: the metadata filter box (the one Chat and the retrieval test use) scopes both
sides of a comparison: every passage either side retrieved or cited comes from a file inside it."""

from __future__ import annotations

from core.ingest.service import Upload
from tests.dashboard.conftest import button, goto, new_app, sign_up, texts
from tests.metadata.conftest import LISBON, PORTO

QUESTION = "How much are hotel costs reimbursed per night?"


def _compare(at, typed_filter: str) -> list[set[str]]:
    at.text_input(key="ab_filter").input(typed_filter)
    at.text_area(key="ab_question").input(QUESTION)
    button(at, "Compare").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.subheader] == ["Normal", "Strict"]
    # one table of retrieved passages per side: the files they came from
    return [{name.split(" · ")[0] for name in d.value["File"]} for d in at.dataframe]


def _two_offices(engine, actor):
    """A knowledge base with Lisbon's and Porto's files, each with its ``office`` value."""
    kb = engine.create_kb(actor, "travel")
    engine.ingest(actor, kb.id, [Upload("lisbon.md", LISBON.encode()), Upload("porto.md", PORTO.encode())])
    engine.define_metadata_field(actor, kb.id, "office", "text")
    ids = {f.name: f.id for f in engine.list_files(actor, kb.id)}
    engine.set_file_metadata(actor, ids["lisbon.md"], {"office": "Lisbon"})
    engine.set_file_metadata(actor, ids["porto.md"], {"office": "Porto"})
    return kb


def test_a_filtered_comparison_retrieves_and_cites_only_files_inside_the_filter(engine):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    _two_offices(engine, actor)
    at = goto(at, "ab")

    unfiltered = _compare(at, "")
    assert len(unfiltered) == 2 and set().union(*unfiltered) == {"lisbon.md", "porto.md"}  # both files answer

    filtered = _compare(at, "office=Porto")
    assert len(filtered) == 2 and all(side == {"porto.md"} for side in filtered)
    cited = " ".join(x.label for x in at.expander)
    assert "porto.md" in cited and "lisbon.md" not in cited  # each side cites only the file inside the filter


def test_a_malformed_or_unknown_filter_is_said_and_nothing_is_compared(engine):
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "travel")
    engine.ingest(actor, kb.id, [Upload("porto.md", PORTO.encode())])
    at = goto(at, "ab")
    at.text_input(key="ab_filter").input("office")
    at.text_area(key="ab_question").input(QUESTION)
    button(at, "Compare").click()
    at.run()
    assert "write field=value" in texts(at) and not at.subheader
    at.text_input(key="ab_filter").input("office=Porto").run()
    button(at, "Compare").click()
    at.run()
    assert "no knowledge base you search has a field named 'office'" in texts(at) and not at.subheader


def test_an_assistants_own_filter_scopes_both_sides_and_replaces_the_box(engine):
    at = sign_up(new_app(), "alice")  # the first account: an admin, who may compare
    actor = engine.actor_for(at.session_state["user_id"])
    kb = _two_offices(engine, actor)
    engine.create_assistant(actor, "lisbon-desk", [kb.id], mode="strict", where={"office": "Lisbon"})
    at = goto(at, "ab")
    at.selectbox(key="ab_assistant").select_index(1).run()
    assert "Only files matching its filter: office=Lisbon" in texts(at)
    assert not [x for x in at.text_input if x.key == "ab_filter"]  # the assistant's filter, not a second one
    at.text_area(key="ab_question").input(QUESTION)
    button(at, "Compare").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    sides = [{name.split(" · ")[0] for name in d.value["File"]} for d in at.dataframe]
    assert len(sides) == 2 and all(side == {"lisbon.md"} for side in sides)
