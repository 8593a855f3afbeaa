"""A file whose content changed at its source (a watched web page) is a new file: the hand edits of
the earlier version are dropped, and the new file says so (its chunk listing's notice, its history)."""

from __future__ import annotations

from core.types import SYSTEM_ACTOR as ADMIN
from tests.chunk_edits.conftest import make
from tests.parsers.http_fixtures import local_server

PAGE = "<html><body><article><h1>Door</h1><p>The door code is {code}.</p></article></body></html>"


def test_a_changed_page_drops_the_edits_of_its_earlier_version_and_says_so(data_dir, monkeypatch):
    engine = make(data_dir, monkeypatch, parsing={"url_allow_private": True})
    try:
        engine.create_kb(ADMIN, "web")
        with local_server() as srv:
            srv.serve("/door.html", PAGE.format(code=4711).encode(), "text/html; charset=utf-8")
            engine.watch_web_pages(ADMIN, "web", [srv.url("/door.html")])
            [old] = engine.list_files(ADMIN, "web")
            [chunk] = [c for c in engine.list_chunks(ADMIN, old.id).chunks if "4711" in c.text]
            engine.edit_chunk(ADMIN, old.id, chunk.chunk_index, text="The door code is 4711; ring twice.",
                              keywords=["entrance"])
            [row] = engine.sources(ADMIN)
            # unchanged: a sync keeps the file and its edit
            assert engine.sync_source(ADMIN, row.id).status == "done"
            assert [f.id for f in engine.list_files(ADMIN, "web")] == [old.id]
            assert engine.list_chunks(ADMIN, old.id).chunks[chunk.chunk_index].state == "edited"
            srv.serve("/door.html", PAGE.format(code=9000).encode(), "text/html; charset=utf-8")
            assert engine.sync_source(ADMIN, row.id).status == "done"
        [new] = engine.list_files(ADMIN, "web")
        assert new.id != old.id
        listing = engine.list_chunks(ADMIN, new.id)
        assert "1 chunk edit(s) of the earlier version were dropped" in listing.notice
        assert all(c.state == "original" for c in listing.chunks) and any("9000" in c.text for c in listing.chunks)
        hits = engine.search(ADMIN, "entrance ring twice", ["web"], mode="bm25", min_score=0.0).hits
        assert not any("ring twice" in h.text for h in hits)
        [dropped] = engine.chunk_history(ADMIN, new.id)
        assert dropped.action == "dropped" and dropped.note == "the file changed at its source"
        assert dropped.before["text"] == "The door code is 4711; ring twice."
    finally:
        engine.close()
