"""The engine's Google Drive and synced-source methods (issue 12), kept beside ``core/engine.py``
so that file stays readable. ``Engine`` inherits them; every call acts for the actor given and
uses that actor's own Drive connection only."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Callable

from core.accounts import users
from core.ingest import jobs as jobs_mod
from core.ingest.service import IngestResult
from core.parsers.url_guard import AllowList
from core.types import SYSTEM_ACTOR, Actor

log = logging.getLogger("core.engine")


class DriveMethods:
    """Mixed into ``core.engine.Engine`` (uses its db, parts, secret box, settings and job pool)."""

    # ==================================================================== Google Drive & synced sources
    # (issue 12) One block: Drive connection, browse, import, sync; sources and their sync log.
    # Every call acts for the actor given and uses that actor's own Drive connection only.
    def _drive_user(self, actor: Actor) -> None:
        """A connection belongs to an existing account (the CLI's local operator has its own)."""
        if actor.user_id != SYSTEM_ACTOR.user_id:
            users.get_user(self._db, actor.user_id)

    def gdrive_status(self, actor: Actor) -> dict:
        """Set-up, connection state and account of the actor's Drive connection (never a token)."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.status(self._parts, actor)

    def gdrive_auth_url(self, actor: Actor) -> str:
        """The Google consent screen URL for this actor (state + PKCE kept server-side)."""
        from core.gdrive import oauth

        self._drive_user(actor)
        return oauth.authorization_url(self._db, self._secret_box, self._settings().gdrive, actor.user_id)

    def gdrive_finish_auth(self, actor: Actor | None, code: str, state: str) -> dict:
        """Finish the consent redirect (``code`` and ``state`` from the page's query string). The state
        must have been issued to ``actor``; with no actor (the redirect opened a signed-out session)
        the connection goes to the user the state was issued to, and to nobody else."""
        from core.gdrive import oauth
        from core.gdrive import service as gdrive

        if actor is not None:
            self._drive_user(actor)
        settings = self._settings()
        conn = oauth.finish_authorization(self._db, self._secret_box, settings.gdrive,
                                          actor.user_id if actor else None, code, state,
                                          allow=AllowList.of(settings.parsing))
        gdrive.remember_account(self._parts, self._secret_box, conn.user_id)
        return gdrive.status(self._parts, actor or self.actor_for(conn.user_id))

    def gdrive_connect_refresh_token(self, actor: Actor, refresh_token: str) -> dict:
        from core.gdrive import oauth
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        settings = self._settings()
        oauth.connect_refresh_token(self._db, self._secret_box, settings.gdrive, actor.user_id, refresh_token,
                                    allow=AllowList.of(settings.parsing))
        gdrive.remember_account(self._parts, self._secret_box, actor.user_id)
        return gdrive.status(self._parts, actor)

    def gdrive_list(self, actor: Actor, folder_id: str | None = None, query: str = "") -> list[dict]:
        """A folder's entries ("root" My Drive, "shared-with-me", "shared-drives", or a folder id), or a name search."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.browse(self._parts, self._secret_box, actor, folder_id, query)

    def gdrive_import(self, actor: Actor, kb: str, ids: list[str], *, watch: bool = False,
                      progress: Callable[[str, int, int, str], None] | None = None):
        """Import Drive files/folders (folders recursively) as a source of ``kb``; ``watch`` keeps it
        synced on the schedule. Each file is an ingest job (progress, cancel); a result per file.
        The whole import is a job of kind "sync": cancelling it stops before the next files."""
        return self._run_gdrive_import(actor, kb, ids, watch, None, progress)

    def _run_gdrive_import(self, actor: Actor, kb: str, ids: list[str], watch: bool, job_id: str | None,
                           progress: Callable[[str, int, int, str], None] | None = None):
        """The import, tracked by ``job_id`` (a queued job a worker runs) or by a new job row."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        kb_id = self.get_kb(actor, kb).id
        tracker = self._job_tracker(job_id, kind="sync", actor=actor, kb_id=kb_id, message="importing from Google Drive")
        return self._tracked(tracker, lambda: gdrive.import_items(self._parts, self._secret_box, actor, kb, ids,
                                                                   watch=watch, progress=progress, tracker=tracker))

    def _job_tracker(self, job_id: str | None, *, kind: str, actor: Actor, kb_id: str | None, message: str):
        if job_id is None:
            return jobs_mod.JobTracker.start(self._db, kind=kind, actor=actor, kb_id=kb_id, file_id=None, message=message)
        with self._db.write() as s:
            return jobs_mod.JobTracker.adopt_in(self._db, s, job_id, message=message)

    def submit_gdrive_import(self, actor: Actor, kb: str, ids: list[str], *, watch: bool = False) -> Future:
        from core.jobs.submit import enqueue_one

        kb_id = self.get_kb(actor, kb).id  # fail now, in the caller, for unknown or forbidden knowledge bases
        self._drive_user(actor)
        return self._queued([enqueue_one(self._db, actor, "gdrive_import", kb_id=kb_id,
                                         payload={"ids": list(ids), "watch": watch})])

    def gdrive_sync(self, actor: Actor, kb: str | None = None) -> list:
        """Sync the actor's own Drive sources (of ``kb`` when given); a report per source (status
        "busy" for one that is syncing already)."""
        from core.sources import service as sources
        from core.sources.base import SyncBusy
        from core.sources.sync import SyncReport

        reports = []
        for row in sources.list_sources(self._parts, actor, kind="gdrive", kb_ref=kb):
            if row.owner_id != actor.user_id:
                continue
            try:
                reports.append(self.sync_source(actor, row.id))
            except SyncBusy as exc:
                reports.append(SyncReport(row.id, "", "busy", error=exc.message))
        return reports

    def gdrive_attach_to_chat(self, actor: Actor, chat_id: str, file_ids: list[str]) -> list[IngestResult]:
        """Attach Drive files to a chat as its own context (the seed's "upload as chat context"):
        exported like an import, indexed in the chat's collection; a result per file."""
        from core.answering.chats import get_chat
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        get_chat(self._db, actor, chat_id)
        uploads, failed = gdrive.fetch_files(self._parts, self._secret_box, actor, file_ids)
        return [IngestResult(name, "failed", error=why) for name, why in failed] + (
            self.attach_to_chat(actor, chat_id, uploads) if uploads else [])

    def gdrive_disconnect(self, actor: Actor) -> dict:
        """Revoke the actor's Drive tokens at Google and delete them; the actor's Drive sources stop."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.disconnect(self._parts, self._secret_box, actor)

    def sync_source(self, actor: Actor, source_id: str, trigger: str = "manual"):
        """Sync one source now (its owner only). Raises SyncBusy when a sync of it is running."""
        return self._run_sync(actor, source_id, trigger, None)

    def _run_sync(self, actor: Actor, source_id: str, trigger: str, job_id: str | None):
        from core.sources import kinds, service as sources

        row = sources.get_source(self._parts, actor, source_id)
        tracker = self._job_tracker(job_id, kind="sync", actor=actor, kb_id=row.kb_id, message=f"syncing {row.title}")
        return self._tracked(tracker, lambda: kinds.run_source(self._parts, self._secret_box, actor, row,
                                                                trigger=trigger, tracker=tracker))

    def submit_sync_source(self, actor: Actor, source_id: str) -> Future:
        from core.jobs.submit import enqueue_one
        from core.sources import service as sources

        row = sources.get_source(self._parts, actor, source_id)
        return self._queued([enqueue_one(self._db, actor, "sync", kb_id=row.kb_id,
                                         payload={"source_id": source_id, "trigger": "manual"})])

    def watch_web_pages(self, actor: Actor, kb: str, urls: list[str], *, watch: bool = True):
        """Add web pages as a source of ``kb``: fetched now (through the URL guard) and re-fetched on the schedule."""
        from core.sources import kinds

        return kinds.add_web_pages(self._parts, self._secret_box, actor, kb, urls, watch=watch)

    def add_source(self, actor: Actor, source_kind: str, kb: str, config: dict, *, watch: bool = True):
        """Add a source of any registered kind synced by the common sync engine (a plugin's, or
        ``web`` with ``{"urls": [...]}``) to ``kb``: synced now, then on the schedule when watched."""
        from core.sources import kinds

        return kinds.add_source(self._parts, self._secret_box, actor, source_kind, kb, config, watch=watch)

    def sources(self, actor: Actor, kind: str | None = None, kb: str | None = None) -> list:
        from core.sources import service as sources

        return sources.list_sources(self._parts, actor, kind=kind, kb_ref=kb)

    def set_source_watch(self, actor: Actor, source_id: str, watch: bool):
        from core.sources import service as sources

        return sources.set_watch(self._parts, actor, source_id, watch)

    def sync_logs(self, actor: Actor, source_id: str | None = None, limit: int = 20) -> list:
        from core.sources import service as sources

        return sources.sync_logs(self._parts, actor, source_id=source_id, limit=limit)

    def run_scheduled_syncs(self) -> list:
        """One scheduled pass over the watched sources that are due (each as its owner)."""
        from core.sources import kinds

        interval = self._settings().gdrive.sync_interval_minutes
        if interval <= 0:
            return []
        # the CLI's local operator owns sources too (it is no account): it syncs as itself
        return kinds.run_due(self._parts, self._secret_box,
                             lambda uid: SYSTEM_ACTOR if uid == SYSTEM_ACTOR.user_id else self.actor_for(uid), interval)

    def queue_scheduled_syncs(self, tick_seconds: float = 60.0) -> list[str]:
        """If this process leads the scheduler (one process at a time, a lease in the database),
        queue a sync job for each watched source that is due and has none waiting or running;
        the ids queued. The queue's workers run them."""
        from core.jobs import leader
        from core.jobs.queue import ACTIVE, new_worker_id
        from core.jobs.submit import enqueue_one
        from core.sources import service as sources
        from core.db.models import Job
        from sqlmodel import select

        interval = self._settings().gdrive.sync_interval_minutes
        if interval <= 0:
            return []
        if getattr(self, "_scheduler_id", None) is None:
            self._scheduler_id = new_worker_id("sched")
        if not leader.hold(self._db, leader.SCHEDULER, self._scheduler_id, lease_seconds=2 * tick_seconds + 30):
            return []
        with self._db.read() as s:
            active = s.exec(select(Job).where(Job.kind == "sync", Job.state.in_(list(ACTIVE)))).all()
        busy = {(j.payload or {}).get("source_id") for j in active}
        queued = []
        for row in sources.due_sources(self._parts, interval):
            if row.id in busy:
                continue
            owner = SYSTEM_ACTOR if row.owner_id == SYSTEM_ACTOR.user_id else self.actor_for(row.owner_id)
            queued.append(enqueue_one(self._db, owner, "sync", kb_id=row.kb_id,
                                      payload={"source_id": row.id, "trigger": "schedule"}))
        if queued:
            self._queued(queued)
        return queued

    def start_sync_scheduler(self, tick_seconds: float = 60.0):
        """Start (once) the background scheduler that queues the due syncs; never blocks."""
        from core.sources.scheduler import SyncScheduler

        if getattr(self, "_sync_scheduler", None) is None:
            self._sync_scheduler = SyncScheduler(lambda: self.queue_scheduled_syncs(tick_seconds), tick_seconds)
            self._sync_scheduler.start()
        return self._sync_scheduler

    def stop_sync_scheduler(self) -> None:
        from core.jobs import leader

        scheduler = getattr(self, "_sync_scheduler", None)
        if scheduler is not None:
            scheduler.stop()
            self._sync_scheduler = None
            leader.release(self._db, leader.SCHEDULER, self._scheduler_id) if getattr(self, "_scheduler_id", None) else None

    def _tracked(self, tracker, work: Callable):
        from core.errors import CoreError

        try:
            report = work()
        except CoreError as exc:
            tracker.finish("failed", error=exc.message)
            raise
        except BaseException:
            tracker.finish("failed", error="stopped by an unexpected error")
            raise
        tracker.finish("cancelled" if report.status == "cancelled" else "done" if report.status == "done" else "failed",
                       message=f"{report.count('added')} added, {report.count('updated')} updated, "
                               f"{report.count('removed')} removed, {report.count('failed')} failed",
                       error=report.error)
        return report
    # ==================================================================== end of Google Drive & synced sources
