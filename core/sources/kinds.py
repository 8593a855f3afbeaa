"""Where source kinds meet the sync engine: a source row → the Source that reads it.

The sync engine knows no kind; the source-kind registry (core/plugins.py) says which kinds exist.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from core.error_report import new_error_id
from core.errors import CoreError, InvalidInput, PermissionDenied
from core.ingest.jobs import JobTracker
from core.ingest.parts import EngineParts
from core.plugins import SOURCES, UnknownPlugin
from core.secrets.box import SecretBox
from core.sources import service as sources
from core.sources.base import SyncBusy
from core.sources.models import SyncedSource
from core.sources.plugin import SourceContext, SourceKind
from core.sources.sync import SyncReport, run_sync
from core.types import Actor

log = logging.getLogger(__name__)


def _kind(name: str) -> SourceKind:
    try:
        return SOURCES.get(name)
    except UnknownPlugin as exc:
        raise InvalidInput(str(exc)) from None


def run_source(parts: EngineParts, box: SecretBox, actor: Actor, row: SyncedSource, *, trigger: str,
               progress: Callable | None = None, tracker: JobTracker | None = None) -> SyncReport:
    kind = _kind(row.kind)
    if kind.sync is not None:
        return kind.sync(parts, box, actor, row, trigger=trigger, progress=progress, tracker=tracker)
    own = parts.snapshot().settings.sources.kinds.get(kind.name)
    secrets = sources.load_secrets(parts, box, row.id) if kind.secrets else {}
    source = kind.open(SourceContext(parts, row, own, box, secrets))
    return run_sync(parts, actor, row.id, source, trigger=trigger, progress=progress, tracker=tracker)


def add_source(parts: EngineParts, box: SecretBox, actor: Actor, kind_name: str, kb: str, config: dict, *,
               watch: bool = True, progress: Callable | None = None, tracker: JobTracker | None = None) -> SyncReport:
    """A source of any kind synced by the common sync engine, added (or found again) and synced once."""
    row = admit_source(parts, box, actor, kind_name, kb, config, watch=watch)
    return run_source(parts, box, actor, row, trigger="import", progress=progress, tracker=tracker)


def admit_source(parts: EngineParts, box: SecretBox, actor: Actor, kind_name: str, kb: str, config: dict, *,
                 watch: bool = True) -> SyncedSource:
    """The source row for this config (created when new), once every check passed; nothing is
    fetched yet. Credentials (``kind.secrets``) are stored encrypted, apart from the config."""
    kind = _kind(kind_name)
    if kind.open is None:
        raise InvalidInput(f"a {kind_name} source is added from its own page, not by a config")
    if kind.admin_only and not actor.is_admin:
        raise PermissionDenied(f"only an admin can add a {kind_name} source (it reads the server's own storage)")
    config = dict(config)
    secrets = {name: plain_secret(config.pop(name)) for name in kind.secrets if name in config}
    config = kind.check_config(config) if kind.check_config else config
    if kind.admit is not None:
        config = kind.admit(config, parts.snapshot().settings)
    title = kind.title(config) if kind.title else f"{kind_name} source"
    row = sources.find_or_create(parts, actor, kind=kind_name, kb_ref=kb, config=config, title=title, watch=watch)
    if secrets:  # the same source added again with a new password keeps the source, with the new password
        sources.save_secrets(parts, box, row.id, secrets)
    return row


def plain_secret(value) -> str:
    """A credential given as a SecretStr or a str."""
    return str(value.get_secret_value() if hasattr(value, "get_secret_value") else value or "")


def add_web_pages(parts: EngineParts, box: SecretBox, actor: Actor, kb: str, urls: list[str], *, watch: bool = True,
                  progress: Callable | None = None) -> SyncReport:
    return add_source(parts, box, actor, "web", kb, {"urls": urls}, watch=watch, progress=progress)


def run_due(parts: EngineParts, box: SecretBox, actor_for: Callable[[str], Actor], interval_minutes: int) -> list[SyncReport]:
    """One scheduled pass: every watched source that is due, each run as its owner (with the
    owner's own connection). One source failing or busy does not stop the others."""
    reports = []
    for row in sources.due_sources(parts, interval_minutes):
        try:
            reports.append(run_source(parts, box, actor_for(row.owner_id), row, trigger="schedule"))
        except SyncBusy:
            log.info("source %s is already syncing; skipped this round", row.id)
        except CoreError as exc:
            log.warning("scheduled sync of source %s failed: %s", row.id, box.scrub(exc.message))
        except Exception:  # a bug before its sync started (building its client): the pass goes on
            log.exception("scheduled sync of source %s failed (error id %s)", row.id, new_error_id())
    return reports
