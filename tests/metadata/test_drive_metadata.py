"""Automatic fields from a synced source: a Google Drive file's modified time and owner (from the
local fake speaking Drive's API) are filterable once the import is done."""

from __future__ import annotations

from tests.gdrive.conftest import alice, connect, drive, engine  # noqa: F401 (fixtures)


def test_a_drive_files_modified_time_and_owner_are_automatic_fields(engine, drive, alice):  # noqa: F811
    root = drive.folder("Policies")
    first = drive.add("lisbon.md", "text/markdown", root, content="# Lisbon\n\nHotel costs per night: 180 euros.\n".encode())
    drive.add("porto.md", "text/markdown", root, content="# Porto\n\nHotel costs per night: 150 euros.\n".encode())
    connect(engine, alice, drive)
    engine.create_kb(alice, "travel")
    assert engine.gdrive_import(alice, "travel", [root]).status == "done"
    files = {f.name: f for f in engine.list_files(alice, "travel")}
    values = engine.file_metadata(alice, files["lisbon.md"].id).values
    drive_time = drive.files[first].modified.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert values["modified"] == drive_time and values["owner"] == "Alice"
    found = engine.search(alice, "hotel costs per night", ["travel"], mode="bm25", min_score=0,
                          where={"modified": {"lte": drive_time}, "owner": "Alice"})
    assert {h.source_name for h in found.hits} == {"lisbon.md"}  # porto.md was modified after it
    assert not engine.search(alice, "hotel costs per night", ["travel"], mode="bm25", min_score=0,
                             where={"owner": "Bob"}).hits
