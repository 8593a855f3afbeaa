"""Google Drive as the engine offers it: connect, browse, import, sync, disconnect.

Every function acts for one actor and uses that actor's own connection only.
"""

from __future__ import annotations

from typing import Callable

from core.errors import InvalidInput
from core.gdrive import oauth
from core.gdrive.client import FOLDER, DriveClient
from core.gdrive.errors import NotConnected, ReconnectNeeded
from core.gdrive.export import importable
from core.gdrive.source import DriveSource
from core.ingest.jobs import JobTracker
from core.ingest.parts import EngineParts
from core.parsers.url_guard import AllowList
from core.secrets.box import SecretBox
from core.sources import service as sources
from core.sources.models import SyncedSource
from core.sources.sync import SyncReport, run_sync
from core.types import Actor
from core.upload_limits import UploadLimits

# Virtual places above the folder tree (the browser's first level).
MY_DRIVE, SHARED_WITH_ME, SHARED_DRIVES = "root", "shared-with-me", "shared-drives"
FileProgress = Callable[[str, int, int, str], None]


def status(parts: EngineParts, actor: Actor) -> dict:
    cfg = parts.snapshot().settings.gdrive
    conn = oauth.get_connection(parts.db, actor.user_id)
    return {"enabled": cfg.enabled, "missing": oauth.missing_settings(cfg), "picker": bool(cfg.api_key),
            "connected": conn is not None and conn.state == "connected",
            "state": conn.state if conn else "disconnected", "email": conn.email if conn else "",
            "name": conn.display_name if conn else "", "error": conn.last_error if conn else "",
            "sync_interval_minutes": cfg.sync_interval_minutes}


def client_for(parts: EngineParts, box: SecretBox, user_id: str) -> DriveClient:
    settings = parts.snapshot().settings
    creds = oauth.load_credentials(parts.db, box, settings.gdrive, user_id)
    return DriveClient(creds, settings.gdrive.api_base_url, allow=AllowList.of(settings.parsing),
                       on_token=lambda c: oauth.save_connection(parts.db, box, user_id, c))


def _guarded(parts: EngineParts, user_id: str, call: Callable):
    """Run a Drive call; Google refusing the tokens puts the connection (and its sources) in 'reconnect'."""
    try:
        return call()
    except ReconnectNeeded as exc:
        oauth.mark_reconnect(parts.db, user_id, exc.message)
        sources.set_owner_state(parts, user_id, "gdrive", "reconnect", exc.message)
        raise


def remember_account(parts: EngineParts, box: SecretBox, user_id: str) -> None:
    client = client_for(parts, box, user_id)
    user = _guarded(parts, user_id, client.about).get("user", {})
    oauth.save_connection(parts.db, box, user_id, client.creds, email=user.get("emailAddress", ""),
                          display_name=user.get("displayName", ""))
    sources.set_owner_state(parts, user_id, "gdrive", "ok")  # (re)connected: its sources sync again


def entry(f: dict) -> dict:
    """One row of the browser."""
    owners = f.get("owners") or [{}]
    mime = f.get("mimeType", "")
    return {"id": f["id"], "name": f.get("name", ""), "mime": mime, "folder": mime == FOLDER,
            "size": int(f["size"]) if f.get("size") else None, "modified": f.get("modifiedTime", ""),
            "owner": owners[0].get("displayName") or owners[0].get("emailAddress", ""),
            "link": f.get("webViewLink", ""), "importable": not importable(mime) or mime == FOLDER}


def browse(parts: EngineParts, box: SecretBox, actor: Actor, folder_id: str | None = None, query: str = "") -> list[dict]:
    client = client_for(parts, box, actor.user_id)

    def run() -> list[dict]:
        if query.strip():
            return [entry(f) for f in client.search(query.strip())]
        if folder_id in (None, "", MY_DRIVE):
            return [entry(f) for f in client.children(MY_DRIVE)]
        if folder_id == SHARED_WITH_ME:
            return [entry(f) for f in client.shared_with_me()]
        if folder_id == SHARED_DRIVES:
            return [{"id": d["id"], "name": d["name"], "mime": FOLDER, "folder": True, "size": None, "modified": "",
                     "owner": "", "link": "", "importable": True, "shared_drive": True} for d in client.shared_drives()]
        return [entry(f) for f in client.children(folder_id)]

    return _guarded(parts, actor.user_id, run)


def import_items(parts: EngineParts, box: SecretBox, actor: Actor, kb: str, ids: list[str], *, watch: bool,
                 progress: FileProgress | None = None, tracker: JobTracker | None = None) -> SyncReport:
    """Import files and folders (recursively) into a knowledge base, as a source of it."""
    client = client_for(parts, box, actor.user_id)  # fail now, before any row, when not connected
    ids = sorted(dict.fromkeys(i.strip() for i in ids if i.strip()))
    if not ids:
        raise InvalidInput("choose at least one Drive file or folder to import")
    names = [_guarded(parts, actor.user_id, lambda i=i: client.get(i, fields="id,name")).get("name", i) for i in ids[:3]]
    title = "Google Drive: " + ", ".join(names) + (f" +{len(ids) - 3}" if len(ids) > 3 else "")
    row = sources.find_or_create(parts, actor, kind="gdrive", kb_ref=kb, config={"selection": ids},
                                 title=title, watch=watch)
    return sync_source(parts, box, actor, row, trigger="import", progress=progress, tracker=tracker)


def sync_source(parts: EngineParts, box: SecretBox, actor: Actor, row: SyncedSource, *, trigger: str,
                progress: FileProgress | None = None, tracker: JobTracker | None = None) -> SyncReport:
    if row.owner_id != actor.user_id:
        raise NotConnected("a Drive source syncs with its owner's connection only")
    client = client_for(parts, box, actor.user_id)
    source = DriveSource(client, list(row.config.get("selection", [])),
                         limits=UploadLimits.of(parts.snapshot().settings))
    report = run_sync(parts, actor, row.id, source, trigger=trigger, progress=progress, tracker=tracker)
    if report.source_state == "reconnect":  # the user's other Drive sources stop too
        oauth.mark_reconnect(parts.db, actor.user_id, report.error)
        sources.set_owner_state(parts, actor.user_id, "gdrive", "reconnect", report.error)
    return report


def disconnect(parts: EngineParts, box: SecretBox, actor: Actor) -> dict:
    settings = parts.snapshot().settings
    revoked = oauth.disconnect(parts.db, box, settings.gdrive, actor.user_id, allow=AllowList.of(settings.parsing))
    sources.set_owner_state(parts, actor.user_id, "gdrive", "reconnect", "Google Drive was disconnected")
    return {"disconnected": True, "revoked_at_google": revoked}


def fetch_files(parts: EngineParts, box: SecretBox, actor: Actor, ids: list[str]) -> tuple[list, list[tuple[str, str]]]:
    """Drive files as uploads (exported / downloaded like an import), for a chat's own context.
    Returns (uploads, [(id or name, why it failed)]); folders are not attached to a chat."""
    from core.gdrive.export import fetch_content
    from core.ingest.service import Upload
    from core.errors import CoreError

    client = client_for(parts, box, actor.user_id)
    uploads, failed = [], []
    for file_id in ids:
        try:
            f = _guarded(parts, actor.user_id, lambda i=file_id: client.get(i))
            if f.get("mimeType") == FOLDER:
                failed.append((f.get("name", file_id), "a folder cannot be attached to a chat; import it into a knowledge base"))
                continue
            name, data = _guarded(parts, actor.user_id, lambda f=f: fetch_content(client, f["id"], f.get("name", f["id"]), f.get("mimeType", "")))
            uploads.append(Upload(name, data))
        except ReconnectNeeded:
            raise
        except CoreError as exc:
            failed.append((file_id, exc.message))
    return uploads, failed
