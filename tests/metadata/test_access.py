"""Who may do what: reading a knowledge base lets you list its fields and see and filter on its
files' values; only its owner or an admin defines or deletes fields and sets values. A filter
only narrows what the asker may already read: naming a field of a knowledge base she cannot
read finds nothing there, and another user's private values stay invisible."""

from __future__ import annotations

import pytest

from core.accounts.users import actor_of
from core.errors import NotFound, PermissionDenied
from core.types import SYSTEM_ACTOR as ADMIN
from tests.engine.conftest import md
from tests.metadata.conftest import build

QUERY = "hotel costs per night"


@pytest.fixture
def people(sqlite_engine):
    e = sqlite_engine
    e.sign_up("alice", "correct horse")  # the first account is the admin
    bob = actor_of(e.sign_up("bob", "battery staple"))
    carol = actor_of(e.sign_up("carol", "carol-password"))
    return bob, carol


def test_only_the_owner_or_an_admin_changes_fields_and_values(sqlite_engine, people):
    e = sqlite_engine
    bob, carol = people
    e.create_kb(bob, "bob-travel", visibility="public")
    [porto] = e.ingest(bob, "bob-travel", [md("porto.md", "# Porto\n\nHotel costs per night in Porto: 150 euros.\n")])
    made = e.define_metadata_field(bob, "bob-travel", "office", "text")
    assert made.name == "office" and not made.auto
    file_id = e.list_files(bob, "bob-travel")[0].id
    e.set_file_metadata(bob, file_id, {"office": "Porto"})
    # carol can read the public knowledge base: she lists, reads and filters...
    assert "office" in {f.name for f in e.metadata_fields(carol, "bob-travel")}
    assert e.file_metadata(carol, file_id).values["office"] == "Porto"
    found = e.search(carol, QUERY, ["bob-travel"], mode="bm25", min_score=0, where={"office": "Porto"})
    assert [h.source_name for h in found.hits] == ["porto.md"]
    # ...but changes nothing
    with pytest.raises(PermissionDenied):
        e.define_metadata_field(carol, "bob-travel", "year", "number")
    with pytest.raises(PermissionDenied):
        e.delete_metadata_field(carol, "bob-travel", "office")
    with pytest.raises(PermissionDenied):
        e.set_file_metadata(carol, file_id, {"office": "Lisbon"})
    with pytest.raises(PermissionDenied):
        e.import_metadata_csv(carol, "bob-travel", "file,office\nporto.md,Lisbon\n")
    assert e.file_metadata(bob, file_id).values["office"] == "Porto"
    # an admin may
    e.set_file_metadata(ADMIN, file_id, {"office": "Lisbon"})
    assert e.file_metadata(bob, file_id).values["office"] == "Lisbon"


def test_a_private_kbs_fields_and_values_do_not_exist_for_others(sqlite_engine, people):
    e = sqlite_engine
    bob, carol = people
    ids = build(e, kb="hr-private")  # the admin's, private
    with pytest.raises(NotFound):
        e.metadata_fields(bob, "hr-private")
    with pytest.raises(NotFound):
        e.file_metadata(bob, ids["lisbon.md"])
    with pytest.raises(NotFound):
        e.set_file_metadata(bob, ids["lisbon.md"], {"office": "x"})
    with pytest.raises(NotFound):
        e.define_metadata_field(bob, "hr-private", "secret", "text")


def test_a_filter_only_narrows_what_the_asker_may_read(sqlite_engine, people):
    e = sqlite_engine
    bob, carol = people
    build(e, kb="hr-private")  # the admin's private knowledge base defines 'office'
    e.create_kb(carol, "carol-notes")
    e.ingest(carol, "carol-notes", [md("notes.md", "# Notes\n\nHotel costs per night are high everywhere.\n")])
    # 'office' exists only in a knowledge base carol cannot read: for her it is an unknown field
    with pytest.raises(Exception, match="no knowledge base you search has a field named 'office'"):
        e.search(carol, QUERY, None, where={"office": "Porto"})
    # a field every knowledge base has narrows her own results, never reaches the admin's files
    found = e.search(carol, QUERY, None, mode="bm25", min_score=0, where={"file_name": ["porto.md", "notes.md"]})
    assert [h.source_name for h in found.hits] == ["notes.md"]
    answer = e.ask(carol, QUERY, temporary=True, mode="strict", where={"file_name": "porto.md"})
    assert not answer.hit and not answer.llm_called and not answer.citations
