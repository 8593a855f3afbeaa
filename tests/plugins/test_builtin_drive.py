"""Google Drive is a built-in plugin: its source kind, service (operations, job kind) and errors are
registered from its package like an outside plugin's, the engine's composition names none of them,
and a plugin service is handed the engine services its constructor names (the contract's way to
reach accounts, knowledge bases, chats and sources)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.operations import OPERATIONS, PLUGIN_SERVICES, SERVICES
from core.plugins import SOURCES
from core.services.plugin import build_plugin_services
from tests.engine.conftest import make_engine

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def engine(tmp_path, monkeypatch):
    for var in ("DATABASE_URL", "QDRANT_URL", "QDRANT_API_KEY", "RAGDESK_SECRET_KEY"):
        monkeypatch.delenv(var, raising=False)
    e = make_engine(tmp_path / "data")
    yield e
    e.close()


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}


def test_drive_registers_through_the_plugin_registries_only():
    from core.gdrive.drive_service import DriveService

    assert PLUGIN_SERVICES["drive"] is DriveService and "drive" not in SERVICES
    assert SOURCES.get("gdrive").sync is not None
    ops = [name for name, op in OPERATIONS.items() if op.service == "drive"]
    assert {"gdrive_status", "gdrive_import", "submit_gdrive_import", "gdrive_sync", "gdrive_disconnect"} <= set(ops)
    for composer in ("core/engine.py", "core/operations.py"):  # no hand-made entry for Drive
        text = (REPO / composer).read_text(encoding="utf-8")
        assert not any("gdrive" in m or "drive" in m.split(".")[-1] for m in _imports(REPO / composer)), composer
        assert "DriveService" not in text, composer


def test_the_engine_hands_drive_the_services_it_names(engine):
    drive = engine.services.drive
    assert (drive._accounts, drive._kbs, drive._chats, drive._sources) == (
        engine.services.accounts, engine.services.kbs, engine.services.chats, engine.services.sources)
    assert drive._rt is engine.runtime


def test_a_plugin_service_gets_the_services_its_constructor_names_and_a_missing_one_is_named(engine):
    class Wants:
        def __init__(self, rt, *, kbs, files, optional=None):
            self.rt, self.kbs, self.files, self.optional = rt, kbs, files, optional

    class NeedsEarlier:  # a plugin service built before it is there too
        def __init__(self, rt, *, wants):
            self.wants = wants

    class Missing:
        def __init__(self, rt, *, nonesuch):
            pass

    have = vars(engine.services)
    built = build_plugin_services(engine.runtime, have, {"wants": Wants, "later": NeedsEarlier})
    assert built["wants"].kbs is engine.services.kbs and built["wants"].files is engine.services.files
    assert built["wants"].rt is engine.runtime and built["wants"].optional is None
    assert built["later"].wants is built["wants"]
    with pytest.raises(TypeError, match="'missing' asks for engine service\\(s\\) nonesuch"):
        build_plugin_services(engine.runtime, have, {"missing": Missing})
