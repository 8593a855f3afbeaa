"""What the ``sources`` commands print (core/services/sources.py declares them): a source's row, a
sync log's row, a sync's report, their text forms and a report's exit code. The shapes are the
hand-written commands' (tests/cli/golden/sources_*.txt); no row carries a secret."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from core.services.outputs import CliTime


class SourceRow(BaseModel):
    """A synced source in ``sources list``: never its config (a WebDAV URL's user, a Drive selection)."""

    model_config = ConfigDict(from_attributes=True)
    id: str
    kind: str
    kb_id: str
    title: str
    watch: bool
    state: str
    last_sync_at: CliTime | None
    last_error: str


class SyncLogRow(BaseModel):
    """A sync in ``sources log``: when it started, what started it, what it did."""

    model_config = ConfigDict(from_attributes=True)
    when: CliTime = Field(validation_alias="started_at")
    source_id: str
    trigger: str
    status: str
    added: int
    updated: int
    removed: int
    failed: int
    error: str


class SyncItemRow(BaseModel):
    item_id: str
    name: str
    action: str
    file_id: str | None
    chunks: int
    error: str


class SyncReportRow(BaseModel):
    """A sync's report (``sources add-*``, ``sources sync``): SyncReport.as_dict()'s counts and items."""

    source_id: str
    log_id: str
    status: str
    full_listing: bool
    error: str
    source_state: str
    added: int
    updated: int
    removed: int
    failed: int
    results: list[SyncItemRow]


def report_text(r: dict) -> str:
    """A report as text: its counts (and error) on a line, then a line per item touched."""
    head = (f"{r['status']}: {r['added']} added, {r['updated']} updated, {r['removed']} removed, {r['failed']} failed"
            + (f" — {r['error']}" if r["error"] else ""))
    rows = [f"  {x['action']:<9} {x['name']}" + (f"  ({x['error']})" if x["error"] else "") for x in r["results"]]
    return "\n".join([head, *rows])


def report_exit(r: dict) -> int:
    """0 when the sync is done and no item failed, else 1 (the report says which)."""
    return 0 if r["status"] == "done" and not r["failed"] else 1


def sources_text(rows: list[dict]) -> str:
    return "\n".join(f"{r['id']}  {r['kind']:<6} {r['title']} → kb {r['kb_id']} "
                     f"({'watched' if r['watch'] else 'manual'}, {r['state']})" for r in rows) or "no synced sources"


def log_text(rows: list[dict]) -> str:
    return "\n".join(f"{str(r['when'])[:19]}  {r['trigger']:<8} {r['status']:<9} +{r['added']} ~{r['updated']} "
                     f"-{r['removed']} !{r['failed']}" for r in rows) or "no syncs yet"


def workspaces_text(rows: list[dict]) -> str:
    return "\n".join(f"{r['id']}  {r['name']}" for r in rows) or "no knowledge bases"
