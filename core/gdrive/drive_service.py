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
from core.accounts.access import require_admin
from core.db.models import Job
from core.errors import InvalidInput
from core.gdrive.outputs import (DriveStatus, connection_text, disconnected_text, entries_text, reports_exit,
                                 reports_text, status_text)
from core.ingest.uploads import IngestResult
from core.jobs.kinds import OnOutcome, Outcome, owner_of
from core.services.declare import Arg, Cli, CliGroup, Remote, job_kind, operation
from core.services.plugin import register_service
from core.services.source_outputs import SourceRow, SyncReportRow, report_exit, report_text
from core.sources.queued import decode_report, report_outcome
from core.sources.report import SyncReport
from core.types import SYSTEM_ACTOR, Actor

if TYPE_CHECKING:
    from core.services.accounts import AccountService
    from core.services.chats import ChatService
    from core.services.knowledge_bases import KnowledgeBaseService
    from core.services.runtime import Runtime
    from core.services.sources import SourceService


# The CLI's ``python -m core gdrive ...``, the local operator's own Drive connection. It keeps its
# place in the command list, beside ``sources`` (core/cli/commands.py: ``reserve_group``).
GDRIVE = CliGroup("gdrive", "Google Drive: connect, browse, import into a knowledge base, sync")


def _token_given(token: str) -> None:
    if not token.strip():
        raise InvalidInput("no refresh token: give it on standard input or with --refresh-token-file PATH")


# Never a word on the command line (every local user reads those in ps), never printed.
REFRESH_TOKEN = Arg(secret="refresh token", prompt="Google Drive refresh token", confirm=False,
                    from_file="--refresh-token-file", metavar="PATH",
                    from_file_help="read the token from this file (- for standard input)", check=_token_given,
                    refuse="--refresh-token", refusal=(
                        "a refresh token on the command line is readable by every local user (ps): give it on standard "
                        "input (`gdrive connect < token.txt`) or with --refresh-token-file PATH"))


class DriveService:
    def __init__(self, rt: Runtime, *, accounts: AccountService, kbs: KnowledgeBaseService, chats: ChatService,
                 sources: SourceService):
        self._rt, self._accounts, self._kbs, self._chats, self._sources = rt, accounts, kbs, chats, sources

    def _drive_user(self, actor: Actor) -> None:
        """A connection belongs to an existing account (the CLI's local operator has its own)."""
        if actor.user_id != SYSTEM_ACTOR.user_id:
            users.get_user(self._rt.db, actor.user_id)

    # connect, status, ls, import, sync, disconnect: the CLI's gdrive group, in this order
    @operation(handoff=True, cli=Cli("connect", group=GDRIVE, args={"refresh_token": REFRESH_TOKEN}, human=connection_text,
                                     help="connect with a refresh token read from standard input (servers without a browser)"))
    def gdrive_connect_refresh_token(self, actor: Actor, refresh_token: str) -> dict:
        """Connect the actor's Drive with a refresh token obtained elsewhere (servers without a
        browser), checked by refreshing it at Google; kept encrypted, never shown."""
        from core.gdrive import oauth
        from core.gdrive import service as gdrive
        from core.parsers.url_guard import AllowList

        self._drive_user(actor)
        settings = self._rt.settings()
        oauth.connect_refresh_token(self._rt.db, self._rt.secret_box, settings.gdrive, actor.user_id, refresh_token,
                                    allow=AllowList.of(settings.parsing))
        gdrive.remember_account(self._rt.parts, self._rt.secret_box, actor.user_id)
        return gdrive.status(self._rt.parts, actor)

    @operation(handoff=True, cli=Cli("status", group=GDRIVE, help="set-up, connection and synced sources",
                                     out=DriveStatus, human=status_text))
    def gdrive_status(self, actor: Actor) -> dict:
        """Set-up, connection state and account of the actor's Drive connection (never a token), and
        the Drive sources the actor sees."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        rows = self._sources.sources(actor, kind="gdrive")
        return {**gdrive.status(self._rt.parts, actor),
                "sources": [SourceRow.model_validate(r).model_dump() for r in rows]}  # never a selection's config

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

    @operation(handoff=True, cli=Cli("ls", group=GDRIVE, human=entries_text,
                                     help="list a folder (default My Drive; 'shared-with-me', 'shared-drives') or search",
                                     args={"folder_id": Arg(nargs="?"), "query": Arg(help="search file names")}))
    def gdrive_list(self, actor: Actor, folder_id: str | None = None, query: str = "") -> list[dict]:
        """A folder's entries ("root" My Drive, "shared-with-me", "shared-drives", or a folder id),
        or a search of file names."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.browse(self._rt.parts, self._rt.secret_box, actor, folder_id, query)

    @operation(handoff=Remote(via="submit_gdrive_import"), cli=Cli(
        "import", group=GDRIVE, help="import files/folders (recursively) into a knowledge base",
        args={"kb": Arg(flag="--kb"), "ids": Arg(metavar="ID"), "watch": Arg(help="keep it synced on the schedule")},
        out=SyncReportRow, reply=lambda _, report: report.as_dict(), human=report_text, exit=report_exit))
    def gdrive_import(self, actor: Actor, kb: str, ids: list[str], *, watch: bool = False,
                      progress: Callable[[str, int, int, str], None] | None = None) -> SyncReport:
        """Import Drive files and folders (folders recursively) as a source of a knowledge base, kept
        synced on the schedule when watched. Each file is an ingest job (progress, cancel); a result
        per file. The whole import is a job of kind "sync": cancelling it stops before the next files."""
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

    @operation(handoff=True, cli=Cli(
        "sync", group=GDRIVE, help="sync this operator's Drive sources now",
        args={"due": Arg(help="for cron: every watched source that is due (any kind), each as its owner")},
        out=list[SyncReportRow], reply=lambda _, reports: [r.as_dict() for r in reports], human=reports_text,
        exit=reports_exit))
    def gdrive_sync(self, actor: Actor, kb: str | None = None, due: bool = False) -> list[SyncReport]:
        """Sync the actor's own Drive sources (of a knowledge base when given); a report per source
        (status "busy" for one that is syncing already). With due (admins: the scheduler's pass, for
        cron), every watched source that is due instead, of any kind, each as its owner."""
        from core.sources import service as sources
        from core.sources.base import SyncBusy

        if due:
            require_admin(actor, "run the scheduled syncs of every user's sources")
            return self._sources.run_scheduled_syncs()
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

    @operation(handoff=True, cli=Cli("disconnect", group=GDRIVE, human=disconnected_text,
                                     help="revoke the connection at Google and delete its tokens"))
    def gdrive_disconnect(self, actor: Actor) -> dict:
        """Revoke the actor's Drive tokens at Google and delete them; the actor's Drive sources stop."""
        from core.gdrive import service as gdrive

        self._drive_user(actor)
        return gdrive.disconnect(self._rt.parts, self._rt.secret_box, actor)


register_service("drive", DriveService)
