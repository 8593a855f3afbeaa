"""What the ``gdrive`` commands print (core/gdrive/drive_service.py declares them): the connection's
status and the Drive sources, a folder's entries, a sync's report, their text forms and exit codes.
The shapes are the hand-written commands' (tests/cli/golden/gdrive_*.txt); none carries a token."""

from __future__ import annotations

from pydantic import BaseModel

from core.services.outputs import CliTime


class DriveSourceRow(BaseModel):
    """A Drive source in ``gdrive status``: never its selection's config nor its owner."""

    id: str
    kind: str
    kb_id: str
    title: str
    watch: bool
    state: str
    last_sync_at: CliTime | None
    last_error: str


class DriveStatus(BaseModel):
    """Set-up, connection and account of the actor's Drive connection, and the Drive sources it sees."""

    enabled: bool
    missing: list[str]
    picker: bool
    connected: bool
    state: str
    email: str
    name: str
    error: str
    sync_interval_minutes: int
    sources: list[DriveSourceRow]


def connection_text(status: dict) -> str:
    if status["missing"]:
        return "Google Drive is not set up: missing " + ", ".join(status["missing"])
    if status["state"] == "reconnect":
        return f"reconnect needed: {status['error']}"
    return f"connected as {status['email'] or status['name']}" if status["connected"] else "not connected"


def status_text(status: dict) -> str:
    """The connection on a line, then a line per Drive source."""
    return "\n".join([connection_text(status)] + [
        f"  source {r['id']}: {r['title']} → kb {r['kb_id']} ({'watched' if r['watch'] else 'manual'}, {r['state']})"
        for r in status["sources"]])


def entries_text(rows: list[dict]) -> str:
    return "\n".join(f"{'📁' if r['folder'] else '  '} {r['id']}  {r['name']}  {r['modified'][:10]}  {r['owner']}"
                     for r in rows) or "(empty)"


def report_text(r: dict) -> str:
    """A sync's report: its counts (and error) on a line, then a line per item touched."""
    head = (f"{r['status']}: {r['added']} added, {r['updated']} updated, {r['removed']} removed, {r['failed']} failed"
            + (f" — {r['error']}" if r["error"] else ""))
    rows = [f"  {x['action']:<9} {x['name']}" + (f"  ({x['error']})" if x["error"] else "") for x in r["results"]]
    return "\n".join([head, *rows])


def reports_text(reports: list[dict]) -> str:
    return "\n".join(map(report_text, reports)) or "no Drive sources to sync"


def report_exit(r: dict) -> int:
    """0 when the sync is done and no item failed, else 1 (the report says which)."""
    return 0 if r["status"] == "done" and not r["failed"] else 1


def reports_exit(reports: list[dict]) -> int:
    return max(map(report_exit, reports), default=0)


def disconnected_text(d: dict) -> str:
    return "disconnected" + ("" if d["revoked_at_google"] else
                             " (Google could not confirm the revocation; tokens deleted here)")
