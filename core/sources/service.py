"""Synced sources as the engine offers them: create, list, log, and which are due a sync."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlmodel import delete, select

from core.accounts.access import resolve_kb
from core.db.models import utcnow
from core.errors import NotFound, PermissionDenied
from core.ingest.parts import EngineParts
from core.sources.lease import _aware
from core.secrets.box import SecretBox
from core.sources.models import SourceItemRecord, SourceSecret, SyncedSource, SyncLog
from core.types import Actor


def find_or_create(parts: EngineParts, actor: Actor, *, kind: str, kb_ref: str, config: dict, title: str,
                   watch: bool) -> SyncedSource:
    """The actor's source of this kind, knowledge base and config (created when new).
    Importing the same selection twice syncs the one source instead of adding a second."""
    with parts.db.write() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)
        for row in s.exec(select(SyncedSource).where(SyncedSource.kind == kind, SyncedSource.kb_id == kb.id,
                                                     SyncedSource.owner_id == actor.user_id)):
            if row.config == config:
                if watch and not row.watch:
                    row.watch = True
                    s.add(row)
                return row
        row = SyncedSource(kind=kind, kb_id=kb.id, owner_id=actor.user_id, config=config, title=title, watch=watch)
        s.add(row)
        return row


def save_secrets(parts: EngineParts, box: SecretBox, source_id: str, secrets: dict[str, str]) -> None:
    """Store (or replace) a source's credentials, encrypted."""
    with parts.db.write() as s:
        for name, value in secrets.items():
            row = s.get(SourceSecret, (source_id, name)) or SourceSecret(source_id=source_id, name=name)
            row.value, row.updated_at = box.encrypt(value), utcnow()
            s.add(row)


def load_secrets(parts: EngineParts, box: SecretBox, source_id: str) -> dict[str, str]:
    """A source's credentials, decrypted (the box remembers them, so logs are scrubbed of them)."""
    with parts.db.read() as s:
        rows = list(s.exec(select(SourceSecret).where(SourceSecret.source_id == source_id)))
    return {r.name: box.decrypt(r.value) for r in rows}


def list_sources(parts: EngineParts, actor: Actor, *, kind: str | None = None, kb_ref: str | None = None) -> list[SyncedSource]:
    """The actor's own sources (an admin sees every user's, but syncs only with their owners' access)."""
    with parts.db.read() as s:
        q = select(SyncedSource).order_by(SyncedSource.created_at)
        if kind:
            q = q.where(SyncedSource.kind == kind)
        if kb_ref:
            q = q.where(SyncedSource.kb_id == resolve_kb(s, actor, kb_ref).id)
        if not actor.is_admin:
            q = q.where(SyncedSource.owner_id == actor.user_id)
        return list(s.exec(q))


def get_source(parts: EngineParts, actor: Actor, source_id: str, *, own: bool = True) -> SyncedSource:
    with parts.db.read() as s:
        row = s.get(SyncedSource, source_id)
    if row is None or (row.owner_id != actor.user_id and not actor.is_admin):
        raise NotFound(f"source '{source_id}' not found")
    if own and row.owner_id != actor.user_id:
        raise PermissionDenied("a source syncs with its owner's connection; only its owner can run it")
    return row


def set_watch(parts: EngineParts, actor: Actor, source_id: str, watch: bool) -> SyncedSource:
    get_source(parts, actor, source_id)
    with parts.db.write() as s:
        row = s.get(SyncedSource, source_id)
        row.watch = watch
        s.add(row)
        return row


def sync_logs(parts: EngineParts, actor: Actor, *, source_id: str | None = None, limit: int = 20) -> list[SyncLog]:
    visible = {r.id for r in list_sources(parts, actor)}
    with parts.db.read() as s:
        q = select(SyncLog).order_by(SyncLog.started_at.desc()).limit(limit)
        if source_id:
            q = q.where(SyncLog.source_id == source_id)
        elif not actor.is_admin:
            q = q.where(SyncLog.source_id.in_(visible))
        rows = list(s.exec(q))
    return [r for r in rows if actor.is_admin or r.source_id in visible]


def due_sources(parts: EngineParts, interval_minutes: int, now: datetime | None = None) -> list[SyncedSource]:
    """Watched sources whose last sync is older than the interval (never synced = due)."""
    now = now or datetime.now(timezone.utc)
    with parts.db.read() as s:
        rows = list(s.exec(select(SyncedSource).where(SyncedSource.watch.is_(True)).order_by(SyncedSource.created_at)))
    cutoff = now - timedelta(minutes=interval_minutes)
    return [r for r in rows if r.state != "reconnect" and (r.last_sync_at is None or _aware(r.last_sync_at) <= cutoff)]


def set_owner_state(parts: EngineParts, owner_id: str, kind: str, state: str, error: str = "") -> int:
    """Put every source of this owner and kind in ``state`` (e.g. "reconnect" after a disconnect,
    "ok" again once reconnected, so the schedule picks them up). Returns how many changed."""
    with parts.db.write() as s:
        rows = list(s.exec(select(SyncedSource).where(SyncedSource.owner_id == owner_id, SyncedSource.kind == kind)))
        for row in rows:
            row.state, row.last_error = state, error
            s.add(row)
    return len(rows)


def forget_kb(parts: EngineParts, kb_id: str) -> int:
    """A deleted knowledge base's sources, their item records and sync log go with it (the
    scheduler would otherwise try to sync into nothing). Returns how many sources went."""
    with parts.db.write() as s:
        ids = list(s.exec(select(SyncedSource.id).where(SyncedSource.kb_id == kb_id)))
        if ids:
            s.exec(delete(SourceItemRecord).where(SourceItemRecord.source_id.in_(ids)))
            s.exec(delete(SourceSecret).where(SourceSecret.source_id.in_(ids)))
        s.exec(delete(SyncLog).where(SyncLog.kb_id == kb_id))
        s.exec(delete(SyncedSource).where(SyncedSource.kb_id == kb_id))
    return len(ids)
