"""The automatic ``modified`` field of a synced file is when its source says it last changed — a
folder's file time, a WebDAV share's getlastmodified (a real WsgiDAV server on 127.0.0.1), a
DingTalk node's modifiedTime (the protocol stand-in) — not when ragdesk added it, and a filter on
it picks the older file."""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest
from pydantic import SecretStr

from core.sources.dingtalk.api import forget_tokens
from core.types import SYSTEM_ACTOR as A
from tests.sources.conftest import engine  # noqa: F401 (fixture)
from tests.sources.dingtalk_server import APP_KEY, APP_SECRET, OPERATOR, WORKSPACE, dingtalk_server
from tests.sources.webdav_server import PASSWORD, USER, webdav_server

OLD, NEW = datetime(2021, 3, 4, 5, 6, 7, tzinfo=timezone.utc), datetime(2024, 8, 9, 10, 11, 12, tzinfo=timezone.utc)


def _write(path, text: str, when: datetime) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (when.timestamp(), when.timestamp()))


def _modified(engine, kb: str) -> dict[str, str]:
    return {f.name: engine.file_metadata(A, f.id).values["modified"] for f in engine.list_files(A, kb)}


def _older_only(engine, kb: str, cut: str) -> set[str]:
    found = engine.search(A, "hotel costs per night", [kb], mode="bm25", min_score=0, where={"modified": {"lt": cut}})
    return {h.source_name for h in found.hits}


def test_a_folder_files_time_is_its_modified_field(engine, tmp_path):  # noqa: F811
    share = tmp_path / "share"
    _write(share / "lisbon.md", "# Lisbon\n\nHotel costs per night: 180 euros.", OLD)
    _write(share / "porto.md", "# Porto\n\nHotel costs per night: 150 euros.", NEW)
    engine.save_settings(A, {"sources": {"kinds": {"folder": {"allowed_roots": [str(share)]}}}})
    assert engine.add_folder_source(A, "kb", str(share)).status == "done"
    assert _modified(engine, "kb") == {"lisbon.md": "2021-03-04T05:06:07Z", "porto.md": "2024-08-09T10:11:12Z"}
    assert _older_only(engine, "kb", "2022-01-01") == {"lisbon.md"}


def test_a_webdav_files_last_modified_is_its_modified_field(engine, tmp_path):  # noqa: F811
    share = tmp_path / "dav"
    _write(share / "lisbon.md", "# Lisbon\n\nHotel costs per night: 180 euros.", OLD)
    _write(share / "porto.md", "# Porto\n\nHotel costs per night: 150 euros.", NEW)
    engine.save_settings(A, {"parsing": {"url_allow_hosts": ["127.0.0.1"]}})
    with webdav_server(share) as dav:
        assert engine.add_webdav_source(A, "kb", dav.folder, USER, SecretStr(PASSWORD)).status == "done"
    assert _modified(engine, "kb") == {"lisbon.md": "2021-03-04T05:06:07Z", "porto.md": "2024-08-09T10:11:12Z"}
    assert _older_only(engine, "kb", "2022-01-01") == {"lisbon.md"}


@pytest.fixture
def ding():
    forget_tokens()
    with dingtalk_server() as state:
        yield state
    forget_tokens()


def test_a_dingtalk_nodes_modified_time_is_its_modified_field(engine, ding):  # noqa: F811
    engine.save_settings(A, {"parsing": {"url_allow_hosts": ["127.0.0.1"]},
                             "sources": {"kinds": {"dingtalk": {"base_url": ding.base}}}})
    lisbon = ding.add("d1", "Lisbon", text="# Lisbon\n\nHotel costs per night: 180 euros.", modified=1)
    porto = ding.add("d2", "Porto", text="# Porto\n\nHotel costs per night: 150 euros.", modified=100_000)
    report = engine.add_dingtalk_source(A, "kb", APP_KEY, SecretStr(APP_SECRET), OPERATOR, WORKSPACE)
    assert report.status == "done", report.error
    said = {"Lisbon.docx": lisbon.model()["modifiedTime"], "Porto.docx": porto.model()["modifiedTime"]}
    assert _modified(engine, "kb") == said and said["Lisbon.docx"] < said["Porto.docx"]
    assert _older_only(engine, "kb", said["Porto.docx"]) == {"Lisbon.docx"}
