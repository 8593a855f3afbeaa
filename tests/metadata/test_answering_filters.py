"""A filter is part of the answer's scope in both modes. Strict mode: when the only file that
answers is outside the filter, the fixed reply comes and the model is never called (zero
requests at the fake model server); inside it, the answer cites that file. Normal mode: the
model is only sent passages of files inside the filter. A curated answer (no metadata) is not
given under a filter."""

from __future__ import annotations

import json

from core.answering.replies import no_hit_reply
from core.settings.model import StrictModeSettings
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, server, use_openai  # noqa: F401 (the fixture)
from tests.fakes import text
from tests.metadata.conftest import build

TAXI = "Are taxi rides to the airport reimbursed?"
ZH = "上海出差住宿费每晚不超过多少？"


def test_strict_refuses_when_the_answering_file_is_outside_the_filter(engine, server):  # noqa: F811
    ids = build(engine)
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    cases = ((TAXI, {"office": "Porto"}, "lisbon.md"), (ZH, {"office": "Lisbon"}, "shanghai.md"),
             (TAXI, {"year": {"lt": 2025}}, "lisbon.md"))
    for question, outside, answering_file in cases:
        answer = engine.ask(ADMIN, question, temporary=True, where=outside)
        assert answer.mode == "strict"
        assert answer.text == no_hit_reply(StrictModeSettings(), question)
        assert not answer.hit and not answer.llm_called and not answer.citations
        assert ids[answering_file] not in {r["file_id"] for r in answer.retrieved}  # not even a candidate
    assert server.request_count == 0  # the model was never called
    server.add(text("Yes, with a receipt from the official taxi rank [1]."))
    inside = engine.ask(ADMIN, TAXI, temporary=True, where={"office": "Lisbon", "topics": ["hotel"]})
    assert inside.hit and inside.llm_called
    assert {c.file_id for c in inside.citations} == {ids["lisbon.md"]}
    assert server.request_count == 1


def test_normal_mode_sends_the_model_only_passages_inside_the_filter(sqlite_engine, server):  # noqa: F811
    build(sqlite_engine)
    use_openai(sqlite_engine, server)
    configure(sqlite_engine, answering={"builtin_tools": False})
    server.add(text("I do not know."))
    answer = sqlite_engine.ask(ADMIN, TAXI, temporary=True, mode="normal", where={"office": "Porto"})
    assert answer.mode == "normal" and not answer.error
    sent = json.dumps(server.chat_bodies(), ensure_ascii=False)
    assert "taxi rank" not in sent  # the Lisbon passage never reached the model
    assert {r["file_id"] for r in answer.retrieved} <= {f.id for f in sqlite_engine.list_files(ADMIN, "policies")
                                                       if f.name == "porto.md"}


def test_no_curated_answer_under_a_filter(sqlite_engine, server):  # noqa: F811
    build(sqlite_engine)
    use_openai(sqlite_engine, server)
    configure(sqlite_engine, strict={"rag_strict_mode": True})
    sqlite_engine.add_curated(ADMIN, "policies", TAXI, "Yes, with the rank's receipt.")
    assert sqlite_engine.ask(ADMIN, TAXI, temporary=True).curated  # without a filter it fires
    filtered = sqlite_engine.ask(ADMIN, TAXI, temporary=True, where={"office": "Porto"})
    assert not filtered.curated and not filtered.hit and not filtered.llm_called
    assert server.request_count == 0


def test_the_ab_compare_takes_the_filter_for_both_sides(sqlite_engine, server):  # noqa: F811
    ids = build(sqlite_engine)
    use_openai(sqlite_engine, server)
    configure(sqlite_engine, answering={"builtin_tools": False})
    server.add(text("I do not know."))
    both = sqlite_engine.compare(ADMIN, TAXI, where={"office": "Porto"})
    assert not both.strict.hit and not both.strict.llm_called
    assert ids["lisbon.md"] not in {r["file_id"] for r in both.normal.retrieved + both.strict.retrieved}
    assert "taxi rank" not in json.dumps(server.chat_bodies(), ensure_ascii=False)


def test_whole_documents_are_only_those_inside_the_filter(sqlite_engine, server):  # noqa: F811
    build(sqlite_engine)
    sqlite_engine.update_kb(ADMIN, "policies", full_document=True)
    use_openai(sqlite_engine, server)
    configure(sqlite_engine, answering={"builtin_tools": False})
    server.add(text("I do not know."), text("With a receipt."))
    sqlite_engine.ask(ADMIN, TAXI, temporary=True, mode="normal", where={"office": "Porto"})
    sqlite_engine.ask(ADMIN, TAXI, temporary=True, mode="normal")
    filtered, unfiltered = (json.dumps(b, ensure_ascii=False) for b in server.chat_bodies())
    assert "150 euros" in filtered and "taxi rank" not in filtered and "八百元" not in filtered
    assert "taxi rank" in unfiltered and "八百元" in unfiltered  # whole documents without a filter: all three
