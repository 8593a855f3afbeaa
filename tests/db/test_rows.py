"""Rows inserted in bulk (core/db/rows.py) read back the same as rows built by the model's
constructor and added through the session: real SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlmodel import select

from core.db.models import FileRecord, Job
from core.db.rows import insert_rows, row_values, update_rows

# each model's fields with neither a default nor a factory, and one optional JSON field set
GIVEN = {
    FileRecord: dict(sha256="ab" * 32, name="a.txt", owner_id="u1", kb_id="kb1", status="processing"),
    Job: dict(kind="ingest", owner_id="u1", file_id="f1", state="running", message_params={"name": "a.txt"}),
}
FRESH = {"id", "created_at", "updated_at"}  # a factory gives each row its own


@pytest.fixture
def db(either_database):
    return either_database


@pytest.mark.parametrize("model", [FileRecord, Job])
def test_a_bulk_row_holds_what_the_constructor_would(model):
    built = model(**GIVEN[model]).model_dump()
    row = row_values(model, **GIVEN[model])
    assert set(row) == set(built) == set(model.__table__.c.keys())
    assert {k: v for k, v in row.items() if k not in FRESH} == {k: v for k, v in built.items() if k not in FRESH}
    other = row_values(model, **GIVEN[model])
    assert row["id"] != other["id"]
    if model is FileRecord:  # a default factory's dict is each row's own
        assert row["meta"] == {} and row["meta"] is not other["meta"]


@pytest.mark.parametrize("model", [FileRecord, Job])
def test_bulk_rows_read_back_like_rows_added_one_by_one(db, model):
    with db.write() as s:
        s.add(model(id="one-by-one", **GIVEN[model]))
        insert_rows(s, model, [row_values(model, id=f"bulk{i}", **GIVEN[model]) for i in range(3)])
    with db.read() as s:
        rows = {r.id: r.model_dump() for r in s.exec(select(model))}
    assert sorted(rows) == ["bulk0", "bulk1", "bulk2", "one-by-one"]
    reference = {k: v for k, v in rows.pop("one-by-one").items() if k not in FRESH}
    for row in rows.values():
        assert {k: v for k, v in row.items() if k not in FRESH} == reference
        assert row["created_at"] is not None and row["updated_at"] is not None


def test_bulk_updates_set_each_row_its_own_values(db):
    with db.write() as s:
        insert_rows(s, FileRecord, [row_values(FileRecord, id=f"f{i}", **GIVEN[FileRecord]) for i in range(3)])
    with db.write() as s:  # f1 is left alone; "gone" names no row and changes nothing
        update_rows(s, FileRecord, [dict(id=f, status="indexed", chunk_count=n, meta={"embedder_id": f"e{n}"})
                                    for f, n in (("f0", 4), ("f2", 7), ("gone", 9))])
    with db.read() as s:
        rows = {r.id: (r.status, r.chunk_count, r.meta, r.name) for r in s.exec(select(FileRecord))}
    assert rows == {"f0": ("indexed", 4, {"embedder_id": "e4"}, "a.txt"), "f1": ("processing", 0, {}, "a.txt"),
                    "f2": ("indexed", 7, {"embedder_id": "e7"}, "a.txt")}


def test_a_missing_or_unknown_field_is_refused():
    with pytest.raises(TypeError, match="sha256"):
        row_values(FileRecord, name="a.txt", owner_id="u1")
    with pytest.raises(TypeError, match="colour"):
        row_values(FileRecord, colour="red", **GIVEN[FileRecord])
