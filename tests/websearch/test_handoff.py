"""``ask --web`` / ``compare --web`` while another process holds the store: the CLI's command is
handed off through the real socket and the answer (web citations, sources) comes back whole.
Normal mode hits the fake SearXNG; strict mode never does, handed off or not."""

from __future__ import annotations

import json

import pytest

from core.answering.cli_text import AnswerReport
from core.cli.main import main
from core.handoff.channel import HandoffServer
from core.types import SYSTEM_ACTOR
from tests.websearch.test_acceptance import QUESTION, _setup


@pytest.fixture
def cli(engine, data_dir, capsys):
    server = HandoffServer(engine, data_dir)

    def run(*args: str) -> dict:
        code = main(["--data-dir", str(data_dir), "--json", *args])
        out, err = capsys.readouterr()
        assert code == 0 and "hand-off" in err, err
        return json.loads(out)

    yield run
    server.close()


def _comparable(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in ("timings_ms", "events")}


def test_ask_web_handed_off_searches_and_carries_web_citations(engine, fake, cli):
    page, _ = _setup(engine, fake)
    answer = cli("ask", "--web", QUESTION)
    assert len(fake.hits("/search")) == 1 and "412" in answer["text"]
    assert answer["sources"] == ["web"]
    assert page in [c["url"] or c["location"] for c in answer["citations"]]
    assert {c["origin"] for c in answer["citations"]} == {"web"} and all("url" in c for c in answer["citations"])
    assert [e["kind"] for e in answer["events"]].count("web_search") >= 3
    in_process = AnswerReport.model_validate(engine.ask(SYSTEM_ACTOR, QUESTION, temporary=True, web=True))
    assert _comparable(answer) == _comparable(in_process.model_dump(mode="json"))


def test_ask_without_web_handed_off_does_not_search(engine, fake, cli):
    _setup(engine, fake)
    answer = cli("ask", QUESTION)
    assert fake.requests == [] and "web" not in answer["sources"]


def test_strict_ask_web_handed_off_never_calls_the_engine(engine, fake, cli):
    _setup(engine, fake)
    answer = cli("ask", "--web", "--mode", "strict", QUESTION)
    assert fake.requests == []
    assert "web search is off" in " ".join(answer["notices"])
    assert all(c["origin"] != "web" for c in answer["citations"])


def test_compare_web_handed_off_searches_for_the_normal_side_only(engine, fake, cli):
    _setup(engine, fake)
    result = cli("compare", "--web", QUESTION)
    assert len(fake.engine_calls) == 1
    assert result["normal"]["sources"] == ["web"] and "web" not in result["strict"]["sources"]
    assert {c["origin"] for c in result["normal"]["citations"]} == {"web"}
    assert any("web search is off" in n for n in result["strict"]["notices"])
