"""Where source kinds meet the sync engine: a source row → the Source that reads it.

The sync engine knows neither kind; this is the one place that knows both.
"""

from __future__ import annotations

import logging
from typing import Callable

from core.error_report import new_error_id
from core.errors import CoreError, InvalidInput
from core.ingest.jobs import JobTracker
from core.ingest.parts import EngineParts
from core.ingest.service import fetch_url_doc
from core.secrets.box import SecretBox
from core.sources import service as sources
from core.sources.base import SyncBusy
from core.sources.models import SyncedSource
from core.sources.sync import SyncReport, run_sync
from core.sources.web import WebPagesSource
from core.types import Actor

log = logging.getLogger(__name__)
KINDS = ("gdrive", "web")


def run_source(parts: EngineParts, box: SecretBox, actor: Actor, row: SyncedSource, *, trigger: str,
               progress: Callable | None = None, tracker: JobTracker | None = None) -> SyncReport:
    if row.kind == "gdrive":
        from core.gdrive.service import sync_source  # lazy: pulls the Google client libraries

        return sync_source(parts, box, actor, row, trigger=trigger, progress=progress, tracker=tracker)
    if row.kind == "web":
        source = WebPagesSource(list(row.config.get("urls", [])), lambda url: fetch_url_doc(url, parts.snapshot().settings))
        return run_sync(parts, actor, row.id, source, trigger=trigger, progress=progress, tracker=tracker)
    raise InvalidInput(f"unknown source kind '{row.kind}' (known: {', '.join(KINDS)})")


def add_web_pages(parts: EngineParts, box: SecretBox, actor: Actor, kb: str, urls: list[str], *, watch: bool = True,
                  progress: Callable | None = None) -> SyncReport:
    urls = sorted(dict.fromkeys(u.strip() for u in urls if u.strip()))
    bad = [u for u in urls if not u.startswith(("http://", "https://"))]
    if not urls or bad:
        raise InvalidInput(f"web pages need http(s) URLs (got: {', '.join(bad) or 'none'})")
    row = sources.find_or_create(parts, actor, kind="web", kb_ref=kb, config={"urls": urls},
                                 title=f"Web pages: {len(urls)}", watch=watch)
    return run_source(parts, box, actor, row, trigger="import", progress=progress)


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
