"""Synced sources (web pages, Drive folders, a plugin's kinds): add, list, sync now or on the
schedule, the sync log. Every call acts for the actor given; a scheduled sync runs as the source's
owner."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from concurrent.futures import Future

from pydantic import SecretStr

from core.db.models import Job
from core.ingest import jobs as jobs_mod
from core.jobs.kinds import OnOutcome, Outcome, owner_of
from core.services.accounts import AccountService
from core.services.cli_groups import SOURCES
from core.services.declare import Arg, Cli, Remote, job_kind, operation
from core.services.runtime import Runtime
from core.services.source_outputs import (SourceRow, SyncLogRow, SyncReportRow, log_text, report_exit, report_text,
                                          sources_text, workspaces_text)
from core.sources.models import SyncedSource, SyncLog
from core.sources.queued import decode_report, report_outcome
from core.sources.sync import SyncReport
from core.types import SYSTEM_ACTOR, Actor

log = logging.getLogger("core.engine")

KB = Arg(flag="--kb")
NO_WATCH = Arg(help="import once, sync by hand only")


def _report(name: str, line: str, **kw) -> Cli:
    """A ``sources`` command printing a sync's report (text: its counts, a line per item), exit 1
    when the sync failed or an item did."""
    return Cli(name, group=SOURCES, help=line, out=SyncReportRow, reply=lambda _, report: report.as_dict(),
               human=report_text, exit=report_exit, **kw)


# A credential handed over (its server checks it when the source is added: typed once), read from
# standard input or a file, never the command line; kept encrypted, never printed. The hand-off
# would carry it masked: the commands that take one are not handed off.
# --password and --secret refused: argparse would read them as --password-file and --secret-file
# abbreviated, and print the secret back as a file it cannot read.
WEBDAV_PASSWORD = Arg(secret="password", prompt="WebDAV password", confirm=False, from_file="--password-file",
                      metavar="PATH", from_file_help="read the password from this file (- for standard input)",
                      refuse="--password")
APP_SECRET = Arg(secret="AppSecret", prompt="DingTalk AppSecret", confirm=False, from_file="--secret-file",
                 metavar="PATH", from_file_help="read the AppSecret from this file (- for standard input)",
                 refuse=("--app-secret", "--secret"))
DINGTALK_APP = {"app_key": Arg(flag="--app-key", help="the app's AppKey (client id)"),
                "operator_id": Arg(flag="--operator", help="the operator's unionId (whose read access the app uses)"),
                "app_secret": APP_SECRET}
SECRET_STAYS_HERE = ("its secret stays in this process (the hand-off would carry it masked): use the dashboard's "
                     "Synced sources panel, or run this while no process holds the store")
WEBDAV_URL = "the folder's WebDAV URL, e.g. https://cloud.example/remote.php/dav/files/me/Team/"


def job_tracker(rt: Runtime, job_id: str | None, *, kind: str, actor: Actor, kb_id: str | None, message: str):
    if job_id is None:
        return jobs_mod.JobTracker.start(rt.db, kind=kind, actor=actor, kb_id=kb_id, file_id=None, message=message)
    with rt.db.write() as s:
        return jobs_mod.JobTracker.adopt_in(rt.db, s, job_id, message=message)

def tracked(tracker, work: Callable):
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


class SourceService:
    def __init__(self, rt: Runtime, accounts: AccountService):
        self._rt, self._accounts = rt, accounts
        self._scheduler_id: str | None = None
        self._sync_scheduler = None

    @property
    def scheduler_id(self) -> str | None:
        """This process's id in the scheduler's leader lease (None before it first ticked)."""
        return self._scheduler_id

    # list, add-web, add-folder, add-webdav, add-dingtalk, dingtalk-workspaces, sync, log: the CLI's
    # sources group, in this order
    @operation(handoff=True, cli=Cli("list", group=SOURCES, params=(), out=list[SourceRow], human=sources_text))
    def sources(self, actor: Actor, kind: str | None = None, kb: str | None = None) -> list[SyncedSource]:
        from core.sources import service as sources

        return sources.list_sources(self._rt.parts, actor, kind=kind, kb_ref=kb)

    @operation(handoff=True,
               cli=_report("add-web", "add web pages to a knowledge base, re-fetched on the sync schedule",
                           args={"kb": KB, "urls": Arg(metavar="URL"), "watch": NO_WATCH}))
    def watch_web_pages(self, actor: Actor, kb: str, urls: list[str], *, watch: bool = True) -> SyncReport:
        """Add web pages as a source of a knowledge base: fetched now (through the URL guard), then
        fetched again on the sync schedule when watched."""
        from core.sources import kinds

        return kinds.add_web_pages(self._rt.parts, self._rt.secret_box, actor, kb, urls, watch=watch)

    @operation()
    def add_source(self, actor: Actor, source_kind: str, kb: str, config: dict, *, watch: bool = True) -> SyncReport:
        """Add a source of any registered kind synced by the common sync engine (a plugin's, or
        ``web`` with ``{"urls": [...]}``) to ``kb``: synced now, then on the schedule when watched."""
        from core.sources import kinds

        return kinds.add_source(self._rt.parts, self._rt.secret_box, actor, source_kind, kb, config, watch=watch)

    @operation(access="admin", admin_does="add a server folder as a source", handoff=True,
               cli=_report("add-folder", "admins: add a server folder (under an allowed root) to a knowledge base",
                           # made absolute where the command is typed, before a hand-off carries it
                           args={"kb": KB, "path": Arg(metavar="PATH", parse=os.path.abspath), "watch": NO_WATCH}))
    def add_folder_source(self, actor: Actor, kb: str, path: str, *, watch: bool = True,
                          progress: Callable[[str, int, int, str], None] | None = None) -> SyncReport:
        """Add a folder on the server (under an allowed root: the setting
        sources.kinds.folder.allowed_roots) as a source of a knowledge base: imported now as a sync
        job (cancellable), then kept in sync on the schedule when watched."""
        return self._add_tracked(actor, "folder", kb, {"path": path}, watch, f"importing the folder {path}", progress)

    @operation(cli=_report("add-webdav", "add a WebDAV folder (Nextcloud, ownCloud...): the password is read from "
                                         "standard input or --password-file, stored encrypted",
                           not_handed_off=SECRET_STAYS_HERE,
                           params=("kb", "username", "password", "watch", "url"),
                           args={"kb": KB, "username": Arg(flag="--username"), "password": WEBDAV_PASSWORD,
                                 "watch": NO_WATCH, "url": Arg(metavar="URL", help=WEBDAV_URL)}))
    def add_webdav_source(self, actor: Actor, kb: str, url: str, username: str, password: SecretStr, *,
                          watch: bool = True, progress: Callable[[str, int, int, str], None] | None = None) -> SyncReport:
        """Add a WebDAV folder (Nextcloud, ownCloud, any server) as a source of a knowledge base. The
        URL goes through the URL guard; the password is stored encrypted and never listed. Adding
        the same share again with a new password keeps the source and replaces the password."""
        config = {"url": url, "username": username, "password": password}
        return self._add_tracked(actor, "webdav", kb, config, watch, "importing a WebDAV folder", progress)

    @operation(cli=_report("add-dingtalk", "add a DingTalk knowledge base (钉钉知识库) or one folder of it: the "
                                           "AppSecret is read from standard input or --secret-file, stored encrypted",
                           not_handed_off=SECRET_STAYS_HERE,
                           params=("app_key", "operator_id", "app_secret", "kb", "workspace_id", "folder_id", "watch"),
                           args={**DINGTALK_APP, "kb": KB, "watch": NO_WATCH,
                                 "workspace_id": Arg(flag="--workspace", help="the knowledge base's id (sources "
                                                                              "dingtalk-workspaces lists them)"),
                                 "folder_id": Arg(flag="--folder",
                                                  help="sync only this folder (its node id) of the knowledge base")}))
    def add_dingtalk_source(self, actor: Actor, kb: str, app_key: str, app_secret: SecretStr, operator_id: str,
                            workspace_id: str, folder_id: str = "", *, watch: bool = True,
                            progress: Callable[[str, int, int, str], None] | None = None) -> SyncReport:
        """Add a DingTalk knowledge base (or one folder of it) as a source of a knowledge base here:
        each DingTalk document exported (Markdown or docx) and parsed like an upload, then kept in
        sync. The AppSecret is stored encrypted and never listed; adding the same DingTalk
        knowledge base again with a new AppSecret keeps the source and replaces it."""
        config = {"app_key": app_key, "app_secret": app_secret, "operator_id": operator_id,
                  "workspace_id": workspace_id, "folder_id": folder_id}
        return self._add_tracked(actor, "dingtalk", kb, config, watch, "importing a DingTalk knowledge base", progress)

    @operation(cli=Cli("dingtalk-workspaces", group=SOURCES, human=workspaces_text, not_handed_off=SECRET_STAYS_HERE,
                       help="list the DingTalk knowledge bases the operator may read (AppSecret from standard input "
                            "or --secret-file)",
                       params=("app_key", "operator_id", "app_secret"), args=DINGTALK_APP))
    def dingtalk_workspaces(self, actor: Actor, app_key: str, app_secret: SecretStr, operator_id: str) -> list[dict]:
        """The DingTalk knowledge bases the operator may read (id, name, link), to pick one to add."""
        from core.sources.dingtalk import api_for
        from core.sources.kinds import plain_secret

        api = api_for(self._rt.settings(), app_key, plain_secret(app_secret), operator_id)
        try:
            return [{"id": str(w.get("workspaceId") or ""), "name": str(w.get("name") or ""),
                     "url": str(w.get("url") or "")} for w in api.workspaces()]
        finally:
            api.close()

    def _add_tracked(self, actor: Actor, kind: str, kb: str, config: dict, watch: bool, message: str,
                     progress: Callable | None) -> SyncReport:
        from core.sources import kinds

        box = self._rt.secret_box
        row = kinds.admit_source(self._rt.parts, box, actor, kind, kb, config, watch=watch)  # refusals come first
        tracker = job_tracker(self._rt, None, kind="sync", actor=actor, kb_id=row.kb_id, message=message)
        return tracked(tracker, lambda: kinds.run_source(self._rt.parts, box, actor, row, trigger="import",
                                                         progress=progress, tracker=tracker))

    @operation(handoff=Remote(via="submit_sync_source"),
               cli=_report("sync", "sync one source now", params=("source_id",)))
    def sync_source(self, actor: Actor, source_id: str, trigger: str = "manual") -> SyncReport:
        """Sync one source now (its owner only); refused while a sync of it is running."""
        return self.run_sync(actor, source_id, trigger, None)

    def run_sync(self, actor: Actor, source_id: str, trigger: str, job_id: str | None) -> SyncReport:
        from core.sources import kinds, service as sources

        row = sources.get_source(self._rt.parts, actor, source_id)
        tracker = job_tracker(self._rt, job_id, kind="sync", actor=actor, kb_id=row.kb_id, message=f"syncing {row.title}")
        return tracked(tracker, lambda: kinds.run_source(self._rt.parts, self._rt.secret_box, actor, row,
                                                                trigger=trigger, tracker=tracker))

    @operation(job=True)
    def submit_sync_source(self, actor: Actor, source_id: str) -> Future:
        from core.jobs.submit import enqueue_one
        from core.sources import service as sources

        row = sources.get_source(self._rt.parts, actor, source_id)
        return self._rt.queued([enqueue_one(self._rt.db, actor, "sync", kb_id=row.kb_id,
                                         payload={"source_id": source_id, "trigger": "manual"})])

    @job_kind("sync", decode=decode_report)
    def run_sync_job(self, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
        """A queued sync (by hand or the scheduler's), as the source's owner."""
        [job] = jobs
        p = job.payload or {}
        return [report_outcome(self.run_sync(owner_of(self._rt.db, job), p["source_id"], p.get("trigger", "manual"), job.id))]

    @operation()
    def set_source_watch(self, actor: Actor, source_id: str, watch: bool):
        from core.sources import service as sources

        return sources.set_watch(self._rt.parts, actor, source_id, watch)

    @operation(handoff=True, cli=Cli("log", group=SOURCES, help="the sync log", out=list[SyncLogRow], human=log_text,
                                     args={"source_id": Arg(nargs="?")}))
    def sync_logs(self, actor: Actor, source_id: str | None = None, limit: int = 20) -> list[SyncLog]:
        from core.sources import service as sources

        return sources.sync_logs(self._rt.parts, actor, source_id=source_id, limit=limit)

    @operation(access="open", why="the scheduler: each source syncs as its own owner", handoff=True)
    def run_scheduled_syncs(self) -> list[SyncReport]:
        """One scheduled pass over the watched sources that are due (each as its owner)."""
        from core.sources import kinds

        interval = self._rt.settings().gdrive.sync_interval_minutes
        if interval <= 0:
            return []
        # the CLI's local operator owns sources too (it is no account): it syncs as itself
        return kinds.run_due(self._rt.parts, self._rt.secret_box,
                             lambda uid: SYSTEM_ACTOR if uid == SYSTEM_ACTOR.user_id else self._accounts.actor_for(uid), interval)

    @operation(access="open", why="the scheduler: each due source is queued as its own owner")
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

        interval = self._rt.settings().gdrive.sync_interval_minutes
        if interval <= 0:
            return []
        if self._scheduler_id is None:
            self._scheduler_id = new_worker_id("sched")
        if not leader.hold(self._rt.db, leader.SCHEDULER, self._scheduler_id, lease_seconds=2 * tick_seconds + 30):
            return []
        with self._rt.db.read() as s:
            active = s.exec(select(Job).where(Job.kind == "sync", Job.state.in_(list(ACTIVE)))).all()
        busy = {(j.payload or {}).get("source_id") for j in active}
        queued = []
        for row in sources.due_sources(self._rt.parts, interval):
            if row.id in busy:
                continue
            owner = SYSTEM_ACTOR if row.owner_id == SYSTEM_ACTOR.user_id else self._accounts.actor_for(row.owner_id)
            queued.append(enqueue_one(self._rt.db, owner, "sync", kb_id=row.kb_id,
                                      payload={"source_id": row.id, "trigger": "schedule"}))
        if queued:
            self._rt.queued(queued)
        return queued

    @operation(access="open", why="the process's own lifecycle")
    def start_sync_scheduler(self, tick_seconds: float = 60.0):
        """Start (once) the background scheduler that queues the due syncs; never blocks."""
        from core.sources.scheduler import SyncScheduler

        if self._sync_scheduler is None:
            self._sync_scheduler = SyncScheduler(lambda: self.queue_scheduled_syncs(tick_seconds), tick_seconds)
            self._sync_scheduler.start()
        return self._sync_scheduler

    @operation(access="open", why="the process's own lifecycle")
    def stop_sync_scheduler(self) -> None:
        from core.jobs import leader

        scheduler = self._sync_scheduler
        if scheduler is not None:
            scheduler.stop()
            self._sync_scheduler = None
            leader.release(self._rt.db, leader.SCHEDULER, self._scheduler_id) if self._scheduler_id else None
