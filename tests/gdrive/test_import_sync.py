"""Import a Drive folder tree into a knowledge base and keep it true to Drive with one sync.

Real engine parts throughout (parsers, chunking, embedded Qdrant, SQLite); only Google is a
local fake server speaking its HTTP API."""

from __future__ import annotations

import importlib.util

import pytest

from core.sources.models import SyncLog
from core.types import SYSTEM_ACTOR
from tests.fakes.drive_server import DOC, FORM, SHEET, SHORTCUT, SLIDES
from tests.gdrive.conftest import connect, docx_bytes, pptx_bytes, xlsx_bytes

MD = "text/markdown"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def kb_text(engine, actor, kb, *, settled: bool = True) -> str:
    """Every chunk the knowledge base answers from (indexed files only) and, once no ingest is
    running (``settled``), a check that no vector is left of any file that is gone."""
    files = [f for f in engine.list_files(actor, kb) if f.status == "indexed"]
    chunks = [c["text"] for f in files for c in engine.file_chunks(actor, f.id)]
    if settled:
        kb_row = engine.get_kb(actor, kb)
        assert engine._store.count(kb_row.collection) == sum(f.chunk_count for f in files)
    return "\n".join(chunks)


def top_source(engine, actor, kb, query) -> str:
    hits = engine.search(actor, query, [kb]).hits
    return hits[0].source_name if hits else ""


def build_tree(drive):
    root = drive.folder("Handbook")
    sub = drive.folder("Policies", root)
    elsewhere = drive.folder("Archive")
    ids = {
        "doc": drive.add("Onboarding", DOC, root, exports={MD: "# Onboarding\n\nNew staff collect a badge marigold on day one.\n".encode()}),
        "deck": drive.add("Quarterly review", SLIDES, sub, exports={PPTX: pptx_bytes([
            ("Revenue", "Revenue grew through the saffron programme", "Speaker note: mention the pelican contract"),
            ("Hiring", "Two engineers join in spring", "")])}),
        "txt": drive.add("expenses.txt", "text/plain", sub, content="Taxi receipts go to finance within 5 days: juniper rule.".encode()),
        "zh": drive.add("差旅.md", "text/markdown", root, content="# 差旅\n\n出差住宿每晚不超过六百元（琥珀条款）。".encode()),
        "moving": drive.add("vpn.txt", "text/plain", root, content=b"Connect to the VPN with the cobalt profile."),
        "trash": drive.add("old-menu.txt", "text/plain", sub, content=b"The canteen serves lentil soup on Fridays."),
        "form": drive.add("Survey", FORM, root),
    }
    ids["shortcut"] = drive.add("shortcut to vpn", SHORTCUT, sub, target=ids["moving"])
    return root, sub, elsewhere, ids


def test_folder_tree_imports_then_one_sync_matches_drive(engine, drive, alice):
    """The issue's acceptance scenario (the Sheet part runs once core.parsers.spreadsheet is merged)."""
    root, sub, elsewhere, ids = build_tree(drive)
    with_sheets = importlib.util.find_spec("core.parsers.spreadsheet") is not None
    if with_sheets:
        drive.add("Budget", SHEET, sub, exports={XLSX: xlsx_bytes({
            "2025": [["Team", "Budget"], ["Ops", "walnut 100"]], "2026": [["Team", "Budget"], ["Ops", "chestnut 200"]]})})
    connect(engine, alice, drive)
    engine.create_kb(alice, "handbook")
    report = engine.gdrive_import(alice, "handbook", [root], watch=True)
    by_name = {r.name: r for r in report.results}
    assert report.status == "done", report.error
    assert {n for n, r in by_name.items() if r.action == "added"} == {
        "Onboarding", "Quarterly review", "expenses.txt", "差旅.md", "vpn.txt", "old-menu.txt"} | ({"Budget"} if with_sheets else set())
    assert by_name["Survey"].action == "skipped" and "cannot be exported" in by_name["Survey"].error
    assert by_name["shortcut to vpn"].action == "skipped" and "inside the selection" in by_name["shortcut to vpn"].error
    text = kb_text(engine, alice, "handbook")
    for marker in ("marigold", "saffron", "pelican", "juniper", "琥珀", "cobalt", "lentil") + (("walnut", "chestnut") if with_sheets else ()):
        assert marker in text
    # Drive metadata on each file; citations can link back to webViewLink
    doc_file = next(f for f in engine.list_files(alice, "handbook") if f.meta.get("drive_id") == ids["doc"])
    assert doc_file.meta["web_view_link"].endswith(f"/file/d/{ids['doc']}/view")
    assert doc_file.meta["drive_mime"] == DOC and doc_file.meta["modified_time"] and doc_file.meta["drive_version"]
    assert doc_file.name == "Onboarding.md"

    # Drive changes: an edit, a trash, a move out, a new file, and a move within the tree
    drive.edit(ids["doc"], exports={MD: "# Onboarding\n\nNew staff now collect a badge tangerine in week one.\n".encode()})
    drive.edit(ids["txt"], content="Taxi receipts go to finance within 3 days: rowan rule.".encode())
    drive.trash(ids["trash"])
    drive.move(ids["moving"], elsewhere)
    new_id = drive.add("parking.txt", "text/plain", sub, content=b"Visitors park on level minus two, the quartz bay.")
    drive.move(ids["zh"], sub)  # within the tree: nothing to re-ingest
    calls_before = drive.api_calls("/drive/v3/changes?")
    sync = engine.gdrive_sync(alice, "handbook")
    [rep] = sync
    assert drive.api_calls("/drive/v3/changes?") > calls_before and not rep.full_listing
    actions = {(r.name, r.action) for r in rep.results}
    assert {("Onboarding", "updated"), ("expenses.txt", "updated"), ("old-menu.txt", "removed"),
            ("vpn.txt", "removed"), ("parking.txt", "added")} <= actions
    assert not any(r.name == "差旅.md" for r in rep.results)  # moved within: version unchanged
    text = kb_text(engine, alice, "handbook")
    for gone in ("marigold", "juniper", "lentil", "cobalt"):
        assert gone not in text
    for present in ("tangerine", "rowan", "quartz", "琥珀", "saffron"):
        assert present in text
    assert top_source(engine, alice, "handbook", "tangerine badge") == "Onboarding.md"
    assert any(f.meta.get("drive_id") == new_id for f in engine.list_files(alice, "handbook"))

    # the sync log
    logs = engine.sync_logs(alice)
    assert [l.trigger for l in logs] == ["manual", "import"]
    assert (logs[0].added, logs[0].updated, logs[0].removed, logs[0].failed) == (1, 2, 2, 0)


def test_edit_replaces_atomically_old_chunks_answer_until_the_new_are_indexed(engine, drive, alice):
    folder = drive.folder("F")
    fid = drive.add("a.txt", "text/plain", folder, content=b"The password rotation period is ninety days, heron.")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    engine.gdrive_import(alice, "kb", [folder])
    seen_during: list[str] = []

    def watch_progress(name, done, total, message):
        # called while the new version is being embedded: the old one must still answer
        seen_during.append(kb_text(engine, alice, "kb", settled=False))

    drive.edit(fid, content=b"The password rotation period is thirty days, egret.")
    from core.gdrive import service as gdrive
    from core.sources import service as sources

    [row] = sources.list_sources(engine._parts, alice, kind="gdrive")
    gdrive.sync_source(engine._parts, engine._secret_box, alice, row, trigger="manual", progress=watch_progress)
    assert seen_during and all("heron" in t for t in seen_during)
    final = kb_text(engine, alice, "kb")
    assert "egret" in final and "heron" not in final


def test_exports_docs_fall_back_to_docx_and_big_exports_fail_alone(engine, drive, alice):
    folder = drive.folder("F")
    drive.add("Legacy doc", DOC, folder, exports={DOCX: docx_bytes(["The retention period is seven years, osprey."])})
    big = drive.add("Huge doc", DOC, folder, exports={MD: b"# x"})
    drive.files[big].export_too_large = True
    drive.add("notes.txt", "text/plain", folder, content=b"Plain file with the word falcon.")
    drive.add("dump.txt", "text/plain", folder, content=b"x" * (1024 * 1024 + 1))
    engine.save_settings(SYSTEM_ACTOR, {"parsing": {"max_upload_mb": 1}})
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    report = engine.gdrive_import(alice, "kb", [folder])
    by_name = {r.name: r for r in report.results}
    assert by_name["Legacy doc"].action == "added"
    assert by_name["Huge doc"].action == "failed" and "10 MB" in by_name["Huge doc"].error
    assert by_name["notes.txt"].action == "added"
    assert by_name["dump.txt"].action == "failed" and "more than the upload limit of 1 MB" in by_name["dump.txt"].error
    assert not any(p.startswith("/drive/v3/files/" + next(i for i, f in drive.files.items() if f.name == "dump.txt"))
                   and "alt=media" in p for _, p in drive.requests)  # refused before downloading
    text = kb_text(engine, alice, "kb")
    assert "osprey" in text and "falcon" in text
    # the failed file is retried next run (the change cursor is not moved past it)
    drive.files[big].export_too_large = False
    again = engine.gdrive_sync(alice)[0]
    assert sorted((r.name, r.action) for r in again.results) == [("Huge doc", "added"), ("dump.txt", "failed")]


def test_sheets_export_every_sheet(engine, drive, alice):
    pytest.importorskip("core.parsers.spreadsheet")
    folder = drive.folder("F")
    drive.add("Budget", SHEET, folder, exports={XLSX: xlsx_bytes({
        "2025": [["Team", "Budget"], ["Ops", "walnut 100"]],
        "2026": [["Team", "Budget"], ["Ops", "chestnut 200"]]})})
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    report = engine.gdrive_import(alice, "kb", [folder])
    assert [r.action for r in report.results] == ["added"]
    text = kb_text(engine, alice, "kb")
    assert "walnut" in text and "chestnut" in text


def test_expired_change_token_falls_back_to_a_full_listing(engine, drive, alice):
    folder = drive.folder("F")
    keep = drive.add("keep.txt", "text/plain", folder, content=b"kept: ember")
    gone = drive.add("gone.txt", "text/plain", folder, content=b"gone: cinder")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    engine.gdrive_import(alice, "kb", [folder], watch=True)
    drive.delete(gone)
    drive.add("new.txt", "text/plain", folder, content=b"new: flint")
    drive.expire_change_tokens()
    rep = engine.gdrive_sync(alice)[0]
    assert rep.full_listing and rep.status == "done"
    assert {(r.name, r.action) for r in rep.results} == {("gone.txt", "removed"), ("new.txt", "added")}
    text = kb_text(engine, alice, "kb")
    assert "ember" in text and "flint" in text and "cinder" not in text
    assert keep


def test_rate_limits_back_off_honouring_retry_after(engine, drive, alice):
    from core.gdrive.client import Backoff, DriveClient
    from core.parsers.url_guard import AllowList
    from core.gdrive import oauth

    folder = drive.folder("F")
    for i in range(3):
        drive.add(f"{i}.txt", "text/plain", folder, content=b"x")
    connect(engine, alice, drive)
    waits: list[float] = []
    creds = oauth.load_credentials(engine._db, engine._secret_box, engine._settings().gdrive, alice.user_id)
    client = DriveClient(creds, drive.url, allow=AllowList.of(engine._settings().parsing), sleep=waits.append,
                         backoff=Backoff(retries=4, first_seconds=0.5, max_seconds=30))
    drive.fail_next = [(429, "rateLimitExceeded", {"Retry-After": "7"}),
                       (403, "userRateLimitExceeded", {}),
                       (403, "rateLimitExceeded", {"Retry-After": "120"})]
    assert len(client.children(folder)) == 3
    assert waits == [7.0, 1.0, 30.0]  # Retry-After; exponential (0.5 * 2); Retry-After capped
    drive.fail_next = [(429, "rateLimitExceeded", {})] * 5
    with pytest.raises(Exception, match="rate limit still exceeded|HTTP 429"):
        client.children(folder)
    assert waits[3:] == [0.5, 1.0, 2.0, 4.0]


def test_revoked_token_stops_the_sync_with_reconnect(engine, drive, alice):
    folder = drive.folder("F")
    drive.add("a.txt", "text/plain", folder, content=b"alpha")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    engine.gdrive_import(alice, "kb", [folder], watch=True)
    drive.revoke_account("alice")
    rep = engine.gdrive_sync(alice)[0]
    assert rep.status == "failed" and rep.source_state == "reconnect"
    assert engine.gdrive_status(alice)["state"] == "reconnect"
    [row] = engine.sources(alice, kind="gdrive")
    assert row.state == "reconnect"
    assert "alpha" in kb_text(engine, alice, "kb")  # nothing lost
    with engine._db.read() as s:
        assert s.get(SyncLog, rep.log_id).status == "failed"
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": {"sync_interval_minutes": 1}})
    assert engine.run_scheduled_syncs() == []  # a source waiting for reconnect is not scheduled
    connect(engine, alice, drive)  # reconnecting resumes it
    [row] = engine.sources(alice, kind="gdrive")
    assert row.state == "ok"
    with engine._db.write() as s:  # as if the last good sync were an hour ago
        from datetime import datetime, timedelta, timezone

        stored = s.get(type(row), row.id)
        stored.last_sync_at = datetime.now(timezone.utc) - timedelta(hours=1)
        s.add(stored)
    [again] = engine.run_scheduled_syncs()
    assert again.status == "done"


def test_another_users_source_cannot_be_synced_with_their_connection(engine, drive, alice, bob):
    from core.errors import NotFound

    folder = drive.folder("F")
    drive.add("a.txt", "text/plain", folder, content=b"alpha")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb", visibility="public")
    engine.gdrive_import(alice, "kb", [folder], watch=True)
    [row] = engine.sources(alice)
    assert engine.sources(bob) == []
    with pytest.raises(NotFound):
        engine.sync_source(bob, row.id)


def test_an_admin_cannot_browse_or_sync_with_someone_elses_connection(engine, drive, alice, bob):
    from core.errors import PermissionDenied
    from core.gdrive.errors import NotConnected

    assert alice.is_admin and not bob.is_admin
    folder = drive.folder("Bob's", account="bob")
    drive.add("b.txt", "text/plain", folder, account="bob", content=b"bravo")
    connect(engine, bob, drive, "bob")
    engine.create_kb(bob, "bobs")
    engine.gdrive_import(bob, "bobs", [folder], watch=True)
    [row] = engine.sources(alice)  # an admin sees the source exists...
    with pytest.raises(PermissionDenied):
        engine.sync_source(alice, row.id)  # ...but cannot run it with bob's connection
    with pytest.raises(NotConnected):
        engine.gdrive_list(alice, folder)


def test_the_scheduled_pass_through_gdrive_sync_is_an_admins_and_status_lists_the_sources(engine, drive, alice, bob):
    """``gdrive sync --due`` (cron) is gdrive_sync(due=True): every due source, each as its owner, run
    by an admin only; ``gdrive status`` lists the Drive sources the actor sees."""
    from datetime import datetime, timedelta, timezone

    from core.errors import PermissionDenied
    from core.sources.models import SyncedSource

    folder = drive.folder("F", account="bob")
    drive.add("b.txt", "text/plain", folder, account="bob", content=b"bravo")
    connect(engine, bob, drive, "bob")
    engine.create_kb(bob, "bobs")
    engine.gdrive_import(bob, "bobs", [folder], watch=True)
    [row] = engine.sources(bob)
    engine.save_settings(SYSTEM_ACTOR, {"gdrive": {"sync_interval_minutes": 60}})
    with engine._db.write() as s:  # as if the last sync were two hours ago: due
        stored = s.get(SyncedSource, row.id)
        stored.last_sync_at = datetime.now(timezone.utc) - timedelta(hours=2)
        s.add(stored)
    drive.add("c.txt", "text/plain", folder, account="bob", content=b"charlie")
    with pytest.raises(PermissionDenied, match="only an admin"):
        engine.gdrive_sync(bob, due=True)
    assert "charlie" not in kb_text(engine, bob, "bobs")  # refused before anything ran
    [report] = engine.gdrive_sync(alice, due=True)  # alice (admin) runs it; bob's source syncs as bob
    assert (report.source_id, report.status, report.count("added")) == (row.id, "done", 1)
    assert "charlie" in kb_text(engine, bob, "bobs")
    assert engine.gdrive_sync(alice, due=True) == []  # synced just now: no longer due
    assert [s["id"] for s in engine.gdrive_status(bob)["sources"]] == [row.id]
    [seen] = engine.gdrive_status(alice)["sources"]  # an admin sees every Drive source (as sources() does)
    assert seen["id"] == row.id and seen["watch"] and "config" not in seen and "owner_id" not in seen


@pytest.mark.parametrize("mode", ["normal", "strict"])
def test_answers_cite_the_drive_file_with_its_link(engine, drive, alice, mode):
    folder = drive.folder("F")
    fid = drive.add("Leave policy", DOC, folder, exports={MD: "# Leave policy\n\nEvery employee has twenty-five days of annual leave.\n".encode()})
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    engine.gdrive_import(alice, "kb", [folder])
    answer = engine.ask(alice, "How many days of annual leave does an employee have?", kbs=["kb"], mode=mode, temporary=True)
    assert answer.citations, answer.error
    assert answer.citations[0].source_name == "Leave policy.md"
    assert answer.citations[0].url == f"https://drive.example/file/d/{fid}/view"


def test_cancelling_an_import_stops_before_the_next_files_and_a_sync_finishes_it(engine, drive, alice):
    from core.sources.sync import FETCH_GROUP

    folder = drive.folder("F")
    for i in range(FETCH_GROUP + 2):
        drive.add(f"{i:02d}.txt", "text/plain", folder, content=f"file number {i}".encode())
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")

    def cancel_once(name, done, total, message):
        for job in engine.jobs(alice, active_only=True):
            if job.kind == "sync" and not job.cancel_requested:
                engine.cancel_job(alice, job.id)

    report = engine.gdrive_import(alice, "kb", [folder], watch=True, progress=cancel_once)
    assert report.status == "cancelled"
    assert [r.action for r in report.results].count("added") == FETCH_GROUP
    assert [r.action for r in report.results].count("cancelled") == 2
    assert [j.state for j in engine.jobs(alice) if j.kind == "sync"] == ["cancelled"]
    rest = engine.gdrive_sync(alice)[0]  # the cursor was not advanced: the next run picks up the rest
    assert sorted(r.name for r in rest.results if r.action == "added") == [f"{FETCH_GROUP:02d}.txt", f"{FETCH_GROUP + 1:02d}.txt"]
    assert len([f for f in engine.list_files(alice, "kb") if f.status == "indexed"]) == FETCH_GROUP + 2


def test_drive_files_attach_to_a_chat_as_its_own_context(engine, drive, alice):
    folder = drive.folder("F")
    doc = drive.add("Menu", DOC, folder, exports={MD: "# Menu\n\nThursday is dumpling day in the canteen.\n".encode()})
    connect(engine, alice, drive)
    chat = engine.create_chat(alice, "lunch")
    results = engine.gdrive_attach_to_chat(alice, chat.id, [doc, folder])
    assert [(r.name, r.status) for r in results] == [("F", "failed"), ("Menu.md", "indexed")]
    answer = engine.ask(alice, "What day is dumpling day?", chat_id=chat.id)
    assert "Thursday" in answer.text or any("Thursday" in c.text for c in answer.citations)


def test_a_file_deleted_from_the_knowledge_base_by_hand_comes_back_on_the_next_full_sync(engine, drive, alice):
    folder = drive.folder("F")
    drive.add("a.txt", "text/plain", folder, content=b"alpha ibis")
    connect(engine, alice, drive)
    engine.create_kb(alice, "kb")
    engine.gdrive_import(alice, "kb", [folder], watch=True)
    [f] = engine.list_files(alice, "kb")
    engine.delete_files(alice, [f.id])
    drive.expire_change_tokens()  # a full listing compares everything again
    rep = engine.gdrive_sync(alice)[0]
    assert [(r.name, r.action) for r in rep.results] == [("a.txt", "added")]
    assert "ibis" in kb_text(engine, alice, "kb")
