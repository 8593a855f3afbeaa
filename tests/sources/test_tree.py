"""The tree listing's ids (core/sources/tree.py) and the sync plan it leads to, for what a real
folder cannot show when the tests run as root: a sub-folder or the root that cannot be read."""

from __future__ import annotations

import pytest

from core.sources.base import SourceUnavailable
from core.sources.models import SourceItemRecord
from core.sources.sync import plan
from core.sources.tree import TreeFile, tree_listing


def _held(*rows: tuple[str, str, str]) -> dict[str, SourceItemRecord]:
    return {name: SourceItemRecord(source_id="s", item_id=item_id, file_id=f"f-{item_id}", name=name, version=version)
            for item_id, name, version in rows}


def test_what_lies_under_an_unreadable_folder_is_kept_not_removed():
    held = _held(("1", "policies/travel.txt", "h1"), ("2", "policies/leave.txt", "h2"), ("3", "menu.md", "h3"))
    listing = tree_listing([TreeFile("menu.md", "s3")], held, "", lambda f: "h3",
                           errors={"policies": "cannot read: Permission denied"})
    todo = plan(listing, {r.item_id: r for r in held.values()})
    assert todo.remove == [] and todo.add == [] and todo.update == []
    assert set(listing.errors) == {"1", "2"}


def test_an_unreadable_root_stops_the_sync():
    held = _held(("1", "a.md", "h1"))
    with pytest.raises(SourceUnavailable, match="nothing was removed"):
        tree_listing([], held, "", lambda f: "", errors={".": "cannot read: Permission denied"})


def test_ids_follow_edits_and_renames_and_a_touch_reads_nothing():
    held = _held(("1", "a.md", "h1"), ("2", "b.md", "h2"))
    read: list[str] = []

    def digest(f: TreeFile) -> str:
        read.append(f.path)
        return {"a.md": "h1-edited", "c.md": "h2", "d.md": "h4"}[f.path]

    first = tree_listing([TreeFile("a.md", "s1"), TreeFile("c.md", "s2"), TreeFile("d.md", "s4")], held, "", digest)
    ids = {i.name: (i.item_id, i.version) for i in first.items}
    assert ids["a.md"] == ("1", "h1-edited") and ids["c.md"] == ("2", "h2") and ids["d.md"][0] not in ("1", "2")
    todo = plan(first, {r.item_id: r for r in held.values()})
    assert [i.name for i in todo.update] == ["a.md"] and [i.name for i in todo.rename] == ["c.md"]
    assert [i.name for i in todo.add] == ["d.md"] and todo.remove == []
    read.clear()
    tree_listing([TreeFile("a.md", "s1"), TreeFile("c.md", "s2")], held, first.cursor, digest)
    assert read == []  # unchanged stamps: nothing read again
