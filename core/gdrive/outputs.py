"""What the ``gdrive`` commands print (core/gdrive/drive_service.py declares them): the connection's
status and the Drive sources, a folder's entries, the reports of a sync, their text forms and exit
codes (a report's own, and a source's row, are the ``sources`` commands': core/services/source_outputs.py).
The shapes are the hand-written commands' (tests/cli/golden/gdrive_*.txt); none carries a token."""

from __future__ import annotations

from pydantic import BaseModel

from core.services.source_outputs import SourceRow, report_exit, report_text


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
    sources: list[SourceRow]  # never a selection's config nor its owner


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


def reports_text(reports: list[dict]) -> str:
    return "\n".join(map(report_text, reports)) or "no Drive sources to sync"


def reports_exit(reports: list[dict]) -> int:
    return max(map(report_exit, reports), default=0)


def disconnected_text(d: dict) -> str:
    return "disconnected" + ("" if d["revoked_at_google"] else
                             " (Google could not confirm the revocation; tokens deleted here)")
