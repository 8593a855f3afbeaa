"""Proof that plugins need no edit under core/: the toy package (tests/plugins/toy/, loaded by
RAGDESK_PLUGINS) adds a document format, a web search engine and a remote source; each shows in
the settings with its secret masked, and each works end to end through the engine."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select

from core.db import models
from core.errors import InvalidSettings
from core.ingest.service import Upload
from core.plugins import FORMATS, SEARCH_ENGINES, SOURCES
from core.settings.store import SECRET_MASK
from core.types import SYSTEM_ACTOR
from tests.engine.conftest import HANDBOOK_MD, make_engine, md
from tests.plugins.conftest import TOY_KEY, TOY_TOKEN

REPO = Path(__file__).resolve().parents[2]
Q = "How tall is the Quenby lighthouse?"


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    e = make_engine(data_dir)
    e.create_kb(SYSTEM_ACTOR, "handbook")
    e.ingest(SYSTEM_ACTOR, "handbook", [md("handbook.md", HANDBOOK_MD)])
    yield e
    e.close()


def _use_toy_engine(engine, toy_server, **web) -> None:
    engine.save_settings(SYSTEM_ACTOR, {
        "parsing": {"url_allow_hosts": ["127.0.0.1"]},  # the toy server's host, opened as an admin would
        "web_search": {"enable_web_search": True, "web_search_engine": "toy", "bypass_web_search_web_loader": True,
                       "engines": {"toy": {"base_url": toy_server.base, "api_key": TOY_KEY}}, **web}})


def _toy_searches(toy_server) -> list:
    return [r for r in toy_server.requests if r[0] == "/toy-search"]


def test_the_toy_plugins_are_registered_without_core_knowing_them():
    assert "toycard" in FORMATS and "toy" in SEARCH_ENGINES and "toy" in SOURCES
    core_text = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "core").rglob("*.py"))
    assert "tests.plugins" not in core_text and "toycard" not in core_text


def test_each_toy_plugin_has_its_settings_with_the_secret_masked(engine):
    engine.save_settings(SYSTEM_ACTOR, {"web_search": {"engines": {"toy": {"api_key": "toy-secret-1"}}},
                                        "sources": {"kinds": {"toy": {"token": "toy-secret-2"}}},
                                        "parsing": {"formats": {"toycard": {"licence_key": "toy-secret-3"}}}})
    shown = engine.settings_masked()
    assert shown["web_search"]["engines"]["toy"] == {"base_url": "", "api_key": SECRET_MASK}
    assert shown["sources"]["kinds"]["toy"] == {"base_url": "", "token": SECRET_MASK}
    assert shown["parsing"]["formats"]["toycard"] == {"heading": "Toy card", "licence_key": SECRET_MASK}
    assert "toy-secret" not in repr(shown) and "toy-secret" not in repr(engine.settings())
    raw = engine._settings()  # inside core: the plain values the plugins are built from
    assert raw.web_search.engines["toy"].api_key.get_secret_value() == "toy-secret-1"
    assert raw.sources.kinds["toy"].token.get_secret_value() == "toy-secret-2"
    # encrypted at rest: the stored row holds none of the three
    with engine._db.read() as s:
        rows = [row.data for row in s.exec(select(models.SettingsVersion))]
    assert rows and "toy-secret" not in repr(rows)


def test_a_toy_card_is_ingested_and_found(engine):
    card = b"TOYCARD\ncolour: ultramarine\nwheels: seven\n"
    results = engine.ingest(SYSTEM_ACTOR, "handbook", [Upload("robot.toy", card)])
    assert [(r.status, r.error) for r in results] == [("indexed", "")]
    hits = engine.search(SYSTEM_ACTOR, "how many wheels does the robot have", ["handbook"], mode="bm25", min_score=0).hits
    assert hits and hits[0].source_name == "robot.toy" and "# Toy card" in hits[0].text and "wheels: seven" in hits[0].text  # the toy parser's text
    # a .toy file that is not a toy card is left to the built-in sniffing (plain text here)
    other = engine.ingest(SYSTEM_ACTOR, "handbook", [Upload("notes.toy", b"just some plain words about kites")])
    assert [(r.status, r.error) for r in other] == [("indexed", "")]


def test_a_web_search_through_the_toy_engine_in_normal_mode(engine, toy_server):
    _use_toy_engine(engine, toy_server)
    toy_server.hits[Q] = [("https://lighthouse.example/quenby", "Quenby lighthouse", "The Quenby lighthouse is 47 metres tall.")]
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert len(_toy_searches(toy_server)) == 1 and _toy_searches(toy_server)[0][2]["X-Toy-Key"] == TOY_KEY
    assert "47 metres" in answer.text
    assert "https://lighthouse.example/quenby" in [c.location for c in answer.citations]


def test_the_toy_engine_is_never_called_in_strict_mode(engine, toy_server):
    _use_toy_engine(engine, toy_server)
    engine.save_settings(SYSTEM_ACTOR, {"strict": {"rag_strict_mode": True}})
    toy_server.hits[Q] = [("https://lighthouse.example/quenby", "Quenby lighthouse", "47 metres tall.")]
    answer = engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert _toy_searches(toy_server) == []
    assert "47 metres" not in answer.text and "https://lighthouse.example/quenby" not in [c.location for c in answer.citations]


def test_a_sync_of_the_toy_source(engine, toy_server):
    engine.save_settings(SYSTEM_ACTOR, {"sources": {"kinds": {"toy": {"base_url": toy_server.base, "token": TOY_TOKEN}}}})
    toy_server.items["a1"] = ("kites.md", "v1", b"# Kites\n\nThe red kite flies at dawn over the toy shelf.\n")
    report = engine.add_source(SYSTEM_ACTOR, "toy", "handbook", {"shelf": "blue"})
    assert report.status == "done" and report.count("added") == 1, report
    hits = engine.search(SYSTEM_ACTOR, "when does the red kite fly", ["handbook"], mode="bm25", min_score=0).hits
    assert hits and hits[0].source_name == "kites.md"
    assert {r[1].get("shelf") for r in toy_server.requests} == {"blue"}
    toy_server.items["a1"] = ("kites.md", "v2", b"# Kites\n\nThe red kite flies at dusk now.\n")
    [row] = engine.sources(SYSTEM_ACTOR, kind="toy")
    again = engine.sync_source(SYSTEM_ACTOR, row.id)
    assert again.status == "done" and again.count("updated") == 1, again
    with pytest.raises(Exception, match="shelf"):
        engine.add_source(SYSTEM_ACTOR, "toy", "handbook", {})


def test_an_unknown_engine_name_is_refused_naming_the_registered_ones(engine):
    with pytest.raises(InvalidSettings, match="unknown web search engine 'nope'.*toy"):
        engine.save_settings(SYSTEM_ACTOR, {"web_search": {"web_search_engine": "nope"}})


def test_a_plugin_secret_never_reaches_the_log(engine, toy_server, caplog):
    caplog.set_level(logging.DEBUG)
    _use_toy_engine(engine, toy_server)
    toy_server.hits[Q] = []
    engine.ask(SYSTEM_ACTOR, Q, temporary=True, web=True)
    assert TOY_KEY not in caplog.text


def test_plugins_load_at_start_from_the_environment_and_the_cli_masks_their_secrets(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update({"RAGDESK_DATA_DIR": str(tmp_path / "data"), "RAGDESK_EMBEDDING__MODEL": "hash-64",
                "RAGDESK_PLUGINS": "tests.plugins.toy"})

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "core", *args], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=300, check=True)

    saved = cli("settings", "set", "web_search.engines.toy.api_key", "cli-toy-secret")
    assert "cli-toy-secret" not in saved.stdout + saved.stderr
    shown = cli("settings", "get", "web_search.engines.toy")
    assert SECRET_MASK in shown.stdout and "cli-toy-secret" not in shown.stdout
    # the field's own env alias (declared on the plugin's sub-model) sets it too, and stays masked
    env["TOY_SEARCH_API_KEY"] = "env-toy-secret"
    shown = cli("settings", "get", "web_search.engines.toy.api_key")
    assert shown.stdout.strip() == SECRET_MASK
