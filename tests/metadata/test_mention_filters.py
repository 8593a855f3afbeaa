"""A filter written in the question as #mentions (``#office=Lisbon #year>=2025 …``): the same
conditions as ``where``, part of the scope in strict mode (nothing inside → the fixed reply, zero
requests at the model server), never widening a filter given beside it or an assistant's."""

from __future__ import annotations

import pytest

from core.answering.replies import no_hit_reply
from core.errors import InvalidInput
from core.metadata.where import mentioned
from core.settings.model import StrictModeSettings
from core.types import SYSTEM_ACTOR as ADMIN
from tests.answering.conftest import configure, server, use_openai  # noqa: F401 (the fixture)
from tests.fakes import text
from tests.engine.conftest import md
from tests.metadata.conftest import build

TAXI = "Are taxi rides to the airport reimbursed?"  # only the Lisbon policy says so


def test_mentions_read_as_the_cli_form_and_add_to_a_filter():
    assert mentioned(f"#office=Lisbon #year>=2024, {TAXI}", None) == {"office": "Lisbon", "year": {"gte": "2024"}}
    assert mentioned("#topics=hr|travel 出差？", {"year": 2025}) == {"year": 2025, "topics": ["hr", "travel"]}
    assert mentioned(f"#policies {TAXI}", {"year": 2025}) == {"year": 2025}  # a knowledge base, not a filter
    with pytest.raises(InvalidInput, match="'office' is given twice"):
        mentioned("#office=Lisbon taxi?", {"office": "Porto"})  # never replaces a condition (widening)


def test_a_mentioned_filter_is_the_strict_scope(engine, server):  # noqa: F811
    ids = build(engine)
    use_openai(engine, server)
    configure(engine, strict={"rag_strict_mode": True})
    outside = engine.ask(ADMIN, f"#office=Porto {TAXI}", temporary=True)
    assert outside.mode == "strict" and not outside.hit and not outside.llm_called
    assert outside.text == no_hit_reply(StrictModeSettings(), f"#office=Porto {TAXI}")
    assert ids["lisbon.md"] not in {r["file_id"] for r in outside.retrieved}
    assert server.request_count == 0  # the model was never called
    server.add(text("Yes, with a receipt from the official taxi rank [1]."))
    inside = engine.ask(ADMIN, f"#office=Lisbon #year>=2025 {TAXI}", temporary=True)
    assert inside.hit and {c.file_id for c in inside.citations} == {ids["lisbon.md"]}
    with pytest.raises(InvalidInput, match="'ofice'"):
        engine.ask(ADMIN, f"#ofice=Lisbon {TAXI}", temporary=True)


def test_a_mention_narrows_an_assistants_filter_and_cannot_replace_it(sqlite_engine):
    build(sqlite_engine)
    sqlite_engine.create_assistant(ADMIN, "desk", ["policies"], mode="strict", where={"year": 2025})
    lisbon = sqlite_engine.ask_assistant(ADMIN, "desk", f"#office=Porto {TAXI}", temporary=True)
    assert not lisbon.hit  # Porto's policy is 2024: outside the assistant's filter and the mention together
    with pytest.raises(InvalidInput, match="given twice"):
        sqlite_engine.ask_assistant(ADMIN, "desk", f"#year=2024 {TAXI}", temporary=True)


KITCHEN = "# Office kitchen\n\nThe office kitchen closes at six in the evening on weekdays.\n"


def test_a_file_named_like_a_filter_is_that_file_when_mentioned(sqlite_engine, server):  # noqa: F811
    ids = build(sqlite_engine)
    results = sqlite_engine.ingest(ADMIN, "policies", [md("a=b.md", KITCHEN), md("office=Porto.md", KITCHEN.replace("six", "five"))])
    assert all(r.status == "indexed" for r in results), results
    names = {f.name: f.id for f in sqlite_engine.list_files(ADMIN, "policies")}
    use_openai(sqlite_engine, server)
    # the hash test vectors score this short passage low: the bar is lowered, the scope is what is tested
    configure(sqlite_engine, strict={"rag_strict_mode": True, "rag_strict_min_similarity": 0.1})
    question = "When does the office kitchen close on weekdays?"
    # 'a' is no field: read as a filter it was an error; it is the file a=b.md (name or stem wins)
    for mention, file_name in (("#a=b.md", "a=b.md"), ("#a=b", "a=b.md"), ("#office=Porto.md", "office=Porto.md")):
        server.add(text("In the evening [1]."))
        answer = sqlite_engine.ask(ADMIN, f"{mention} {question}", temporary=True)
        assert answer.hit and {c.file_id for c in answer.citations} == {names[file_name]}, (mention, answer)
    # a filter-like mention that names no file stays a filter: office=Lisbon is Lisbon's policy alone
    server.add(text("Not said [1]."))
    outside = sqlite_engine.ask(ADMIN, f"#office=Lisbon {question}", temporary=True)
    assert {r["file_id"] for r in outside.retrieved} == {ids["lisbon.md"]}
    assert mentioned("#a=b.md x", None, lambda: frozenset({"a=b.md"})) is None
    assert mentioned("#a=b.md x", None) == {"a": "b.md"}  # no names given: the filter reading
