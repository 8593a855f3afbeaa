"""The per-file fixed cost of ingestion: one commit registers a block of small files, one makes a
group of them searchable, job progress and cancel checks for a group are one transaction each,
originals and parsed text are synced once per group before that commit."""

from __future__ import annotations

from sqlalchemy import event

from core.db.database import Database
from core.db.models import Job
from core.ingest import jobs
from core.ingest.service import Upload
from core.types import SYSTEM_ACTOR

A = SYSTEM_ACTOR


def test_a_group_of_small_files_is_made_searchable_in_one_commit(engine):
    engine.create_kb(A, "kb")
    commits = []
    event.listen(engine._db.engine, "commit", lambda conn: commits.append(1))
    uploads = [Upload(f"note{i}.md", f"# Note {i}\n\nThe code word of note {i} is zebra{i}.".encode()) for i in range(20)]
    results = engine.ingest(A, "kb", uploads)
    assert [r.status for r in results] == ["indexed"] * 20
    # one commit registers all of them (their rows exist before their vectors: crash safety), one
    # makes the group searchable, one is the knowledge base's first collection, at most a couple
    # are grouped progress writes on a slow machine; before: one to register each file (25 in all),
    # and before that a second per file (47)
    assert len(commits) <= 6, len(commits)
    assert engine._parts.blobs._unsynced == []  # synced before the commit that indexed them
    for i in (0, 19):
        [res] = [r for r in results if r.name == f"note{i}.md"]
        assert engine._parts.blobs.get_parsed(res.file_id) is not None
        hits = engine.search(A, f"zebra{i}", ["kb"], min_score=0).hits
        assert hits and f"zebra{i}" in hits[0].text


def test_progress_and_cancel_of_many_jobs_in_one_transaction_each(tmp_path, monkeypatch):
    db = Database(f"sqlite:///{tmp_path}/jobs.db")
    trackers = [jobs.JobTracker.start(db, kind="ingest", actor=A, kb_id=None, file_id=None, message=f"file {i}")
                for i in range(3)]
    with db.write() as s:  # another process asks to stop the second job: only the database knows
        job = s.get(Job, trackers[1].job_id)
        job.cancel_requested = True
        s.add(job)
    assert jobs.cancelled_many(db, trackers) == set()  # checked at most every interval
    monkeypatch.setattr(jobs, "_PROGRESS_INTERVAL", 0.0)
    assert jobs.cancelled_many(db, trackers) == {trackers[1].job_id}
    assert trackers[1].should_cancel() and not trackers[0].should_cancel()

    commits = []
    event.listen(db.engine, "commit", lambda conn: commits.append(1))
    jobs.progress_many(db, [(t, 2, 5, "embedding") for t in trackers])
    assert len(commits) == 1
    with db.read() as s:
        assert [(s.get(Job, t.job_id).progress_done, s.get(Job, t.job_id).progress_total) for t in trackers] == [(2, 5)] * 3
