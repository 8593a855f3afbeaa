"""A file refused before it was stored is named the same on every page, with its real size, and
counted apart from the indexed files (issue 36: "已拒收/refused" on Knowledge Bases but
"失败/failed" in File Manager, size "0 B", counted in "Files 7")."""

from __future__ import annotations

import pytest

from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR
from tests.dashboard.conftest import goto, new_app, sign_up

BIG = b"The oversize rule applies on weekdays only.\n\n" * 31_000  # 1.3 MB: over a 1 MB limit


def _table(at, column: str):
    frames = [d.value for d in at.dataframe] + [e.value for e in at.get("arrow_data_frame")]  # File Manager: an editor
    return next(f for f in frames if column in f.columns)


@pytest.mark.parametrize("language, refused, status, size, files, not_indexed", [
    ("en", "refused", "Status", "Size", "Files", "Not indexed"),
    ("zh", "已拒收", "状态", "大小", "文件", "未索引"),
])
def test_a_refused_file_is_named_sized_and_counted_alike(engine, language, refused, status, size, files, not_indexed):
    name = "File" if language == "en" else "文件"
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_upload_mb": 1}})
    at = sign_up(new_app(), "alice")
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "handbook")
    results = engine.ingest(actor, kb.id, [Upload("ok.md", b"# Canteen\n\nLunch is at noon.\n"), Upload("big.md", BIG)])
    assert [r.status for r in results] == ["indexed", "failed"]
    at.sidebar.selectbox(key="user_lang").select(language)
    at.run()
    at = goto(at, "kbs")
    listing = _table(at, status)
    row = listing[listing[name] == "big.md"].iloc[0]
    assert (row[status], row[size]) == (refused, "1.3 MB")
    assert {m.label: m.value for m in at.metric}[files] == "1"
    assert {m.label: m.value for m in at.metric}[not_indexed] == "1"
    at = goto(at, "files")
    listing = _table(at, status)
    row = listing[listing[name] == "big.md"].iloc[0]
    assert (row[status], row[size]) == (refused, "1.3 MB")
