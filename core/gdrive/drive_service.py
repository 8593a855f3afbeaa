"""Google Drive: the actor's own connection (OAuth or a refresh token), browse, import as a synced
source, sync, attach to a chat, disconnect. Every call acts for the actor given and uses that
actor's own Drive connection only.

Registered like an outside plugin's service (core/services/plugin.py): ``engine.services.drive``,
built by the engine with its Runtime and the engine services its constructor names (accounts,
kbs, chats, sources); its operations and its job kind ``gdrive_import`` join the operations table
from here. Light at the top (the CLI reads these declarations to build its parser): the services
it is handed are named for type checkers only.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from core.accounts import users
from core.db.models import Job
from core.ingest.uploads import IngestResult
from core.jobs.kinds import OnOutcome, Outcome, owner_of
from core.services.declare import Remote, job_kind, operation
from core.services.plugin import register_service
from core.sources.queued import decode_report, report_outcome
from core.sources.report import SyncReport
from core.types import SYSTEM_ACTOR, Actor

if TYPE_CHECKING:
    from core.services.accounts import AccountService
    from core.services.chats import ChatService
    from core.services.knowledge_bases import KnowledgeBaseService
    from core.services.runtime import Runtime
    from core.services.sources import SourceService


class DriveService:
    def __init__(self, rt: Runtime, *, accounts: AccountService, kbs: KnowledgeBaseService, chats: ChatService,
                 sources: SourceService):
        self._rt, self._accounts, self._kbs, self._chats, self._sources = rt, accounts, kbs, chats, sources

    def _drive_user(self, actor: Actor) -> None:
        """A connection belongs to an existing account (the CLI's local operator has its own)."""
        if actor.user_id != SYSTEM_ACTOR.user_id:
            users.get_user(self._rt.db, actor.user_id)

    @operation(handoff=True)
    def gdrive_status(self, actor: Actor) -> dict:
        """Set-up, connection state and account of the actor's Drive connection (never a token)."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.status(self._rt.parts, actor)

    @operation()
    def gdrive_auth_url(self, actor: Actor) -> str:
        """The Google consent screen URL for this actor (state + PKCE kept server-side)."""
        from core.gdrive import oauth

        self._drive_user(actor)
        return oauth.authorization_url(self._rt.db, self._rt.secret_box, self._rt.settings().gdrive, actor.user_id)

    @operation()
    def gdrive_finish_auth(self, actor: Actor | None, code: str, state: str) -> dict:
        """Finish the consent redirect (``code`` and ``state`` from the page's query string). The state
        must have been issued to ``actor``; with no actor (the redirect opened a signed-out session)
        the connection goes to the user the state was issued to, and to nobody else."""
        from core.gdrive import oauth
        from core.gdrive import service as gdrive
        from core.parsers.url_guard import AllowList

        if actor is not None:
            self._drive_user(actor)
        settings = self._rt.settings()
        conn = oauth.finish_authorization(self._rt.db, self._rt.secret_box, settings.gdrive,
                                          actor.user_id if actor else None, code, state,
                                          allow=AllowList.of(settings.parsing))
        gdrive.remember_account(self._rt.parts, self._rt.secret_box, conn.user_id)
        return gdrive.status(self._rt.parts, actor or self._accounts.actor_for(conn.user_id))

    @operation(handoff=True)
    def gdrive_connect_refresh_token(self, actor: Actor, refresh_token: str) -> dict:
        from core.gdrive import oauth
        from core.gdrive import service as gdrive
        from core.parsers.url_guard import AllowList

        self._drive_user(actor)
        settings = self._rt.settings()
        oauth.connect_refresh_token(self._rt.db, self._rt.secret_box, settings.gdrive, actor.user_id, refresh_token,
                                    allow=AllowList.of(settings.parsing))
        gdrive.remember_account(self._rt.parts, self._rt.secret_box, actor.user_id)
        return gdrive.status(self._rt.parts, actor)

    @operation(handoff=True)
    def gdrive_list(self, actor: Actor, folder_id: str | None = None, query: str = "") -> list[dict]:
        """A folder's entries ("root" My Drive, "shared-with-me", "shared-drives", or a folder id), or a name search."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.browse(self._rt.parts, self._rt.secret_box, actor, folder_id, query)

    @operation(handoff=Remote(via="submit_gdrive_import"))
    def gdrive_import(self, actor: Actor, kb: str, ids: list[str], *, watch: bool = False,
                      progress: Callable[[str, int, int, str], None] | None = None) -> SyncReport:
        """Import Drive files/folders (folders recursively) as a source of ``kb``; ``watch`` keeps it
        synced on the schedule. Each file is an ingest job (progress, cancel); a result per file.
        The whole import is a job of kind "sync": cancelling it stops before the next files."""
        return self.run_gdrive_import(actor, kb, ids, watch, None, progress)

    def run_gdrive_import(self, actor: Actor, kb: str, ids: list[str], watch: bool, job_id: str | None,
                           progress: Callable[[str, int, int, str], None] | None = None) -> SyncReport:
        """The import, tracked by ``job_id`` (a queued job a worker runs) or by a new job row."""
        from core.gdrive import service as gdrive
        from core.services.sources import job_tracker, tracked

        self._drive_user(actor)
        kb_id = self._kbs.get_kb(actor, kb).id
        tracker = job_tracker(self._rt, job_id, kind="sync", actor=actor, kb_id=kb_id, message="importing from Google Drive")
        return tracked(tracker, lambda: gdrive.import_items(self._rt.parts, self._rt.secret_box, actor, kb, ids,
                                                                   watch=watch, progress=progress, tracker=tracker))

    @operation(job=True)
    def submit_gdrive_import(self, actor: Actor, kb: str, ids: list[str], *, watch: bool = False) -> Future:
        from core.jobs.submit import enqueue_one

        kb_id = self._kbs.get_kb(actor, kb).id  # fail now, in the caller, for unknown or forbidden knowledge bases
        self._drive_user(actor)
        return self._rt.queued([enqueue_one(self._rt.db, actor, "gdrive_import", kb_id=kb_id,
                                         payload={"ids": list(ids), "watch": watch})])

    @job_kind("gdrive_import", decode=decode_report)
    def run_gdrive_import_job(self, jobs: list[Job], on_outcome: OnOutcome | None = None) -> list[Outcome]:
        [job] = jobs
        p = job.payload or {}
        return [report_outcome(self.run_gdrive_import(owner_of(self._rt.db, job), job.kb_id, p["ids"], p.get("watch", False),
                                                      job.id))]

    @operation(handoff=True)
    def gdrive_sync(self, actor: Actor, kb: str | None = None) -> list[SyncReport]:
        """Sync the actor's own Drive sources (of ``kb`` when given); a report per source (status
        "busy" for one that is syncing already)."""
        from core.sources import service as sources
        from core.sources.base import SyncBusy

        reports = []
        for row in sources.list_sources(self._rt.parts, actor, kind="gdrive", kb_ref=kb):
            if row.owner_id != actor.user_id:
                continue
            try:
                reports.append(self._sources.sync_source(actor, row.id))
            except SyncBusy as exc:
                reports.append(SyncReport(row.id, "", "busy", error=exc.message))
        return reports

    @operation()
    def gdrive_attach_to_chat(self, actor: Actor, chat_id: str, file_ids: list[str]) -> list[IngestResult]:
        """Attach Drive files to a chat as its own context (the seed's "upload as chat context"):
        exported like an import, indexed in the chat's collection; a result per file."""
        from core.chats.store import get_chat
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        get_chat(self._rt.db, actor, chat_id)
        uploads, failed = gdrive.fetch_files(self._rt.parts, self._rt.secret_box, actor, file_ids)
        return [IngestResult(name, "failed", error=why) for name, why in failed] + (
            self._chats.attach_to_chat(actor, chat_id, uploads) if uploads else [])

    @operation(handoff=True)
    def gdrive_disconnect(self, actor: Actor) -> dict:
        """Revoke the actor's Drive tokens at Google and delete them; the actor's Drive sources stop."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.disconnect(self._rt.parts, self._rt.secret_box, actor)


register_service("drive", DriveService)
