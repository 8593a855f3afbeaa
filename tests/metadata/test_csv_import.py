"""Values in bulk from a CSV: each bad row fails alone with its line and why, every good row is
stored and searchable at once; a header naming an unknown field refuses the whole file first."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput
from core.types import SYSTEM_ACTOR as ADMIN
from tests.metadata.conftest import build

QUERY = "hotel costs per night"


def test_one_bad_row_fails_alone_and_the_good_rows_are_stored(engine):
    ids = build(engine)
    csv = ("file,office,year,effective,topics\n"
           "lisbon.md,Lisboa,2026,2026-01-01,travel|budget\n"
           "porto.md,Porto,next year,2024-01-15,travel\n"  # line 3: not a number
           "missing.md,Faro,2025,,\n"  # line 4: no such file
           f"{ids['shanghai.md']},上海办公室,,2025-13-01,\n"  # line 5: no 13th month
           "shanghai.md,上海办公室,2027,,差旅|预算\n")
    report = engine.import_metadata_csv(ADMIN, "policies", csv.encode("utf-8"))
    assert report.updated == 2
    assert [(e.line, e.message) for e in report.errors] == [
        (3, "year: 'next year' is not a number"),
        (4, "no file 'missing.md' in this knowledge base"),
        (5, "effective: '2025-13-01' is not a date (use 2025-03-01 or 2025-03-01T09:30:00Z)"),
    ]
    lisbon = engine.file_metadata(ADMIN, ids["lisbon.md"]).values
    assert lisbon["office"] == "Lisboa" and lisbon["year"] == 2026 and lisbon["topics"] == ["budget", "travel"]
    porto = engine.file_metadata(ADMIN, ids["porto.md"]).values
    assert porto["office"] == "Porto" and porto["year"] == 2024  # its bad row changed nothing
    shanghai = engine.file_metadata(ADMIN, ids["shanghai.md"]).values
    assert shanghai["office"] == "上海办公室" and shanghai["year"] == 2027
    assert shanghai["effective"] == "2025-07-01T00:00:00Z"  # an empty cell leaves a value as it was
    found = engine.search(ADMIN, QUERY, ["policies"], mode="dense", min_score=0, where={"year": {"gte": 2026}})
    assert {h.source_name for h in found.hits} == {"lisbon.md", "shanghai.md"}


def test_a_dash_removes_a_value_and_a_bad_header_refuses_the_file(sqlite_engine):
    ids = build(sqlite_engine)
    report = sqlite_engine.import_metadata_csv(ADMIN, "policies", "file,office\nporto.md,-\n")
    assert report.updated == 1 and not report.errors
    assert "office" not in sqlite_engine.file_metadata(ADMIN, ids["porto.md"]).values
    for bad, why in (("file,ofice\nporto.md,Porto\n", "unknown or automatic field column"),
                     ("file,file_name\nporto.md,x.md\n", "unknown or automatic field column"),
                     ("name,office\nporto.md,Porto\n", "first column of the header must be 'file'")):
        with pytest.raises(InvalidInput, match=why):
            sqlite_engine.import_metadata_csv(ADMIN, "policies", bad)
    assert "office" not in sqlite_engine.file_metadata(ADMIN, ids["porto.md"]).values
