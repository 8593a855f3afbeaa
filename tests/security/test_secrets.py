"""Threat: someone who reads the data folder (a backup, a wider-than-meant file mode), the CLI's
output, the logs or a chat learns an API key. Each test saves a key and looks for it."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest
from sqlmodel import select

from core.config import RuntimeConfig
from core.db.database import Database
from core.db.models import SettingsVersion
from core.ingest.blobs import SMALL_BLOB_BYTES
from core.secrets.rotation import rotate
from core.secrets.box import SecretBox, SecretError, read_key_file
from core.settings.store import SECRET_MASK
from core.types import SYSTEM_ACTOR, Actor
from tests.cli.test_cli import run_cli
from tests.engine.conftest import HANDBOOK_MD, make_engine, md
from tests.fakes import fake_llm_server, http_error

KEY = "sk-LEAKCANARY-4f1c9e77b2"
PLAIN = Actor(user_id="u-plain", role="user", name="plain")


@pytest.fixture
def engine(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.delenv("RAGDESK_SECRET_KEY", raising=False)
    e = make_engine(data_dir)
    yield e
    e.close()


def _files_holding(folder: Path, needle: bytes) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_saved_key_is_nowhere_in_the_data_folder(engine, data_dir):
    engine.save_settings(SYSTEM_ACTOR, {"llm": {"api_key": KEY}, "web_search": {"tavily_api_key": KEY + "-t"}})
    engine.create_kb(SYSTEM_ACTOR, "kb")
    engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD)])
    assert engine._settings().llm.api_key.get_secret_value() == KEY  # it is really saved (and decrypts)
    assert _files_holding(data_dir, KEY.encode()) == []  # sqlite db, its WAL, blobs, parsed text, store
    with Database(engine.config.database_url).read() as s:
        rows = [json.dumps(r.data) for r in s.exec(select(SettingsVersion))]
    assert any("enc:v1:" in r for r in rows) and not any(KEY in r for r in rows)


def test_the_data_folder_is_private(engine, data_dir):
    engine.create_kb(SYSTEM_ACTOR, "kb")
    # a small original and its text are database rows; a long one's are files of their own
    long_text = "\n\n".join(f"Part {i}. {HANDBOOK_MD}" for i in range(SMALL_BLOB_BYTES // len(HANDBOOK_MD) + 2))
    engine.ingest(SYSTEM_ACTOR, "kb", [md("h.md", HANDBOOK_MD), md("long.md", long_text)])
    assert stat.S_IMODE(os.stat(data_dir).st_mode) == 0o700
    private = [data_dir / "ragdesk.db", data_dir / "ragdesk.db-wal", data_dir / "secret.key",
               *(data_dir / "files").rglob("*"),
               *(data_dir / "parsed").rglob("*")]
    files = [p for p in private if p.is_file()]
    assert len(files) >= 4
    assert {p.name: stat.S_IMODE(os.stat(p).st_mode) for p in files} == {p.name: 0o600 for p in files}


def test_secrets_leave_the_engine_masked(engine, monkeypatch):
    engine.save_settings(SYSTEM_ACTOR, {"llm": {"api_key": KEY}})
    assert engine.settings().llm.api_key.get_secret_value() == SECRET_MASK
    assert engine.settings_masked()["llm"]["api_key"] == SECRET_MASK
    monkeypatch.setenv("RAGDESK_EMBEDDING__API_KEY", "env-secret-123456")
    assert engine.settings_overridden()["embedding"]["api_key"] == SECRET_MASK


@pytest.mark.slow  # three CLI processes
def test_the_cli_never_prints_a_key(tmp_path):
    data = tmp_path / "data"
    outputs = [run_cli(data, *args) for args in (
        ("settings", "set", "llm.api_key", KEY),
        ("--json", "settings", "set", "embedding", json.dumps({"api_key": KEY + "-e"})),
        ("--json", "settings", "get"),
    )]
    assert all(KEY not in out.stdout + out.stderr for out in outputs)
    shown = json.loads(outputs[2].stdout)
    assert shown["llm"]["api_key"] == shown["embedding"]["api_key"] == SECRET_MASK
    assert json.loads(outputs[1].stdout)["value"] == {"api_key": SECRET_MASK}


def test_logs_are_scrubbed_of_known_secrets(engine, caplog):
    engine.save_settings(SYSTEM_ACTOR, {"llm": {"api_key": KEY}})
    engine._settings()
    with caplog.at_level(logging.INFO):
        logging.getLogger("some.library").info("calling with key %s", KEY)
        try:
            raise RuntimeError(f"server said: bad key {KEY}")
        except RuntimeError:
            logging.getLogger("some.library").exception("failed")
    text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
    assert "calling with key" in text and KEY not in text


def test_a_provider_error_with_the_key_never_reaches_the_chat(engine, caplog):
    engine.create_kb(PLAIN, "mine")
    engine.ingest(PLAIN, "mine", [md("h.md", HANDBOOK_MD)])
    with fake_llm_server() as srv:
        engine.save_settings(SYSTEM_ACTOR, {"llm": {"provider": "openai", "base_url": srv.openai_url,
                                                     "api_key": KEY, "model": "fake-model"}})
        srv.add(http_error(400, f"key {KEY} is not valid for this project; internal trace id 7781"))
        with caplog.at_level(logging.ERROR):
            answer = engine.ask(PLAIN, "How many remote days per week?", kbs=["mine"])
    assert answer.error and "error id" in answer.error
    stored = engine.chat_messages(PLAIN, answer.chat_id)
    shown = json.dumps([m.model_dump(mode="json") for m in stored], ensure_ascii=False)
    assert KEY not in shown and "trace id" not in shown  # a plain sentence, not the server's words
    error_id = answer.error.rsplit("error id ", 1)[1].strip(" ().")
    assert error_id in caplog.text and KEY not in caplog.text


def test_rotation_re_encrypts_everything_under_a_new_key(engine, data_dir, monkeypatch):
    engine.save_settings(SYSTEM_ACTOR, {"llm": {"api_key": KEY}})
    engine.save_settings(SYSTEM_ACTOR, {"llm": {"temperature": 0.5}})
    old_keys = read_key_file(data_dir / "secret.key")
    report = rotate(RuntimeConfig.from_env(data_dir), environ={})
    assert report.settings_versions == 2
    new_keys = read_key_file(data_dir / "secret.key")
    assert len(new_keys) == 1 and new_keys[0] not in old_keys
    assert stat.S_IMODE(os.stat(data_dir / "secret.key").st_mode) == 0o600
    assert engine._settings().llm.api_key.get_secret_value() == KEY  # a running engine reloads the rotated key file
    with Database(engine.config.database_url).read() as s:
        stored = [r.data["llm"]["api_key"] for r in s.exec(select(SettingsVersion)) if "api_key" in r.data.get("llm", {})]
    old_box = SecretBox(old_keys[0])
    for value in stored:
        with pytest.raises(SecretError):
            old_box.decrypt(value)
    assert SecretBox.for_data_dir(data_dir, environ={}).decrypt(stored[0]) == KEY


def test_rotation_with_an_environment_key_needs_the_new_one(data_dir):
    with pytest.raises(SecretError, match="RAGDESK_NEW_SECRET_KEY"):
        rotate(RuntimeConfig.from_env(data_dir), environ={"RAGDESK_SECRET_KEY": "old passphrase"})


def test_an_embedding_provider_error_reaches_a_plain_user_as_a_plain_sentence(engine, caplog):
    from tests.fakes.embedding_server import fake_embedding_server
    from tests.fakes.embedding_server import http_error as embed_error

    with fake_embedding_server(api_key=KEY) as srv:
        engine.save_settings(SYSTEM_ACTOR, {"embedding": {"provider": "openai", "base_url": srv.openai_url,
                                                           "api_key": KEY, "model": "fake-embed"}})
        engine.create_kb(PLAIN, "mine")
        [first] = engine.ingest(PLAIN, "mine", [md("first.md", "# First\n\nA first note about laptops.\n")])
        assert first.status == "indexed"
        srv.fail_next(*[embed_error(400, f"key {KEY} lacks scope; shard db-7 internal")] * 5)
        with caplog.at_level(logging.ERROR):
            [result] = engine.ingest(PLAIN, "mine", [md("h.md", HANDBOOK_MD)])
    assert result.status == "failed" and "error id" in result.error
    stored = engine.get_file(PLAIN, result.file_id).error
    assert KEY not in stored and "shard db-7" not in stored
    assert "shard db-7" in caplog.text and KEY not in caplog.text  # the full text is in the log, scrubbed
