"""One scheduler across processes: two engines on one database (the Qdrant-server stand-in lets
both open a store) each run their sync scheduler; the due source is queued once, by the one
holding the scheduler lease, and the other takes over when the leader stops."""

from __future__ import annotations

import threading
import time

from sqlmodel import select

from core.config import RuntimeConfig
from core.db.database import Database
from core.db.models import Job
from core.jobs import leader
from core.sources import service as sources
from core.types import SYSTEM_ACTOR as A
from tests.engine.conftest import make_engine
from tests.fakes.qdrant_server import fake_qdrant_server


def _sync_jobs(engine) -> list[Job]:
    with engine._db.read() as s:
        return list(s.exec(select(Job).where(Job.kind == "sync")).all())


def test_two_schedulers_on_one_database_queue_a_due_sync_once(data_dir, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with fake_qdrant_server() as srv:
        monkeypatch.setenv("QDRANT_URL", srv.url)
        # nobody runs the queue here: what the schedulers queued stays visible
        first = make_engine(data_dir, gdrive={"sync_interval_minutes": 5}, jobs={"dashboard_workers": 0})
        second = make_engine(data_dir)
        try:
            first.create_kb(A, "kb")
            row = sources.find_or_create(first._parts, A, kind="web", kb_ref="kb",
                                         config={"urls": ["http://127.0.0.1:9/x"]}, title="Web pages: 1", watch=True)
            first.start_sync_scheduler(tick_seconds=0.1)
            second.start_sync_scheduler(tick_seconds=0.1)
            time.sleep(2.0)  # about 20 ticks each
            jobs = _sync_jobs(first)
            assert len(jobs) == 1 and jobs[0].payload == {"source_id": row.id, "trigger": "schedule"}
            holder = leader.holder_of(first._db, leader.SCHEDULER)
            assert holder in (first.services.sources.scheduler_id, second.services.sources.scheduler_id)
            leading, other = (first, second) if holder == first.services.sources.scheduler_id else (second, first)
            leading.stop_sync_scheduler()  # the leader goes: the other takes the duty over
            time.sleep(1.0)
            assert leader.holder_of(first._db, leader.SCHEDULER) == other.services.sources.scheduler_id
            assert len(_sync_jobs(first)) == 1  # the waiting sync is not doubled by the new leader
        finally:
            first.stop_sync_scheduler()
            second.stop_sync_scheduler()
            first.close()
            second.close()


def test_the_lease_admits_one_holder_while_candidates_race(data_dir):
    url = RuntimeConfig.from_env(data_dir).database_url
    dbs = [Database(url), Database(url)]
    wins: list[str] = []
    lock = threading.Lock()

    def candidate(db: Database, name: str) -> None:
        for _ in range(30):
            if leader.hold(db, leader.SCHEDULER, f"{name}:1:x:y", lease_seconds=30):
                with lock:
                    wins.append(name)

    threads = [threading.Thread(target=candidate, args=(db, f"host-{i}")) for i, db in enumerate(dbs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert len(set(wins)) == 1 and len(wins) == 30  # the winner renews; the other never gets in
        leader.release(dbs[0], leader.SCHEDULER, f"{wins[0]}:1:x:y")
        assert leader.hold(dbs[1], leader.SCHEDULER, "someone-else:1:x:y", lease_seconds=30)
    finally:
        for db in dbs:
            db.dispose()
