"""File Manager: visible files, filters, bulk delete with confirmation (vectors go too),
storage audit for admins only."""

from __future__ import annotations

from core.ingest.service import Upload
from core.vectorstore.base import kb_collection
from tests.dashboard.conftest import button, goto, new_app, sign_up, texts

DOC_A = "# 报销\n\n第一条 差旅费用须在出差结束后十五日内报销。\n\n第二条 发票须真实有效。"
DOC_B = "# Leave\n\nNew employees get ten days of annual leave in their first year."


def _setup(engine, at):
    actor = engine.actor_for(at.session_state["user_id"])
    kb = engine.create_kb(actor, "finance")
    results = engine.ingest(actor, kb.id, [Upload("报销.md", DOC_A.encode()), Upload("leave.md", DOC_B.encode())])
    assert [r.status for r in results] == ["indexed", "indexed"]
    return actor, kb


def test_lists_filters_and_bulk_deletes_with_vectors(engine):
    at = sign_up(new_app(), "alice")
    actor, kb = _setup(engine, at)
    goto(at, "files")
    table = at.data_editor[0].value
    assert sorted(table["File"]) == ["leave.md", "报销.md"]
    assert set(table["Knowledge base"]) == {"finance"}
    at.text_input(key="fm_name").input("报销")
    at.run()
    assert list(at.data_editor[0].value["File"]) == ["报销.md"]
    # tick the row, then the delete button stays disabled until confirmed
    at.session_state["fm_table_0"] = {"edited_rows": {0: {"Select": True}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert "1 file and all its embeddings will be removed." in texts(at)
    assert button(at, "Delete 1 file").disabled
    at.checkbox(key="fm_confirm").check()
    at.run()
    button(at, "Delete 1 file").click()
    at.run()
    assert "Deleted 1 file and its vectors: 报销.md" in texts(at)
    assert [f.name for f in engine.list_files(actor)] == ["leave.md"]
    leave = engine.list_files(actor)[0]
    assert engine.kb_stats(actor, kb.id)["vectors"] == leave.chunk_count > 0


def test_storage_audit_finds_and_repairs_an_orphan_for_admins_only(engine):
    at = sign_up(new_app(), "alice")
    actor, kb = _setup(engine, at)
    orphan = kb_collection("orphan", 1)
    engine._store.create_collection(orphan, 64)  # what an interrupted reindex leaves behind
    goto(at, "files")
    button(at, "Run audit").click()
    at.run()
    assert "Found disagreements" in texts(at)
    audit = next(d.value for d in at.dataframe if "Check" in d.value.columns)
    assert audit.loc[audit["Check"] == "Orphan collections", "Items"].item() == orphan
    button(at, "Repair").click()
    at.run()
    assert "Repaired." in texts(at)
    assert orphan not in engine._store.list_collections()
    assert engine.doctor(actor).healthy
    bob = goto(sign_up(new_app(), "bob"), "files")
    assert not any(b.label == "Run audit" for b in bob.button)
    assert "No files match." in texts(bob)  # alice's private files are not listed for bob
