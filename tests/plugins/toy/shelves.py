"""The toy source's shelves: a bookmark table of its own, two operations (CLI, hand-off, HTTP), a
job kind and an error class — all from this package, nothing under core/ names them.

- table ``toy_shelf_bookmark`` (metadata here, revisions in ``migrations/``), made by the normal
  migration step at start-up on SQLite and PostgreSQL;
- ``toy_shelves``: ``python -m core toy-shelves [--json]``, ``GET /api/v1/toy/shelves``;
- ``toy_bookmark``: ``python -m core toy-bookmark SHELF [--note N]``, ``POST /api/v1/toy/shelves``;
  a shelf holds at most ``MAX_BOOKMARKS``: one more is ``ToyShelfFull`` (exit 40, HTTP 409);
- job kind ``toy_tidy``: drops a shelf's bookmarks, queued by ``toy_tidy`` (``python -m core toy-tidy SHELF``);
- a dashboard panel, "Toy shelves" (``shelves_panel.py``), in the navigation for admins.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, delete, func, insert, select

from core.db.plugin_tables import TableSet, register_tables
from core.errors import CoreError, InvalidInput
from core.jobs.kinds import Outcome, reraise
from core.jobs.submit import enqueue_one
from core.panels import DashboardPanel, register_panel
from core.services.declare import Cli, Http, job_kind, operation
from core.services.plugin import register_service
from core.types import Actor

MAX_BOOKMARKS = 3

metadata = MetaData()
bookmarks = Table(
    "toy_shelf_bookmark", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("shelf", String(100), nullable=False, index=True),
    Column("note", String(500), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
register_tables(TableSet("toy", metadata, Path(__file__).parent / "migrations"))


class ToyShelfFull(CoreError):
    """A shelf already holds MAX_BOOKMARKS bookmarks."""

    exit_code = 40
    http_status = 409


@dataclass
class ToyShelf:
    shelf: str
    bookmarks: int
    notes: list[str]


class ToyShelfOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    shelf: str
    bookmarks: int
    notes: list[str]


def _removed(jobs: list) -> int:
    [job] = jobs
    reraise(job)
    return int((job.result or {}).get("removed", 0))


class ToyShelfService:
    def __init__(self, runtime):
        self.runtime, self.db = runtime, runtime.db

    @operation(access="admin", admin_does="list the toy shelves", handoff=True, cli=Cli("toy-shelves"),
               http=Http("GET", "/api/v1/toy/shelves", out=list[ToyShelfOut], summary="The toy shelves", tag="toy"))
    def toy_shelves(self, actor: Actor, shelf: Annotated[str, Field(description="only this shelf")] = "") -> list[ToyShelf]:
        """The toy shelves that hold bookmarks, each with its notes (oldest first)."""
        query = select(bookmarks.c.shelf, bookmarks.c.note).order_by(bookmarks.c.shelf, bookmarks.c.id)
        if shelf:
            query = query.where(bookmarks.c.shelf == shelf)
        with self.db.read() as session:
            rows = session.execute(query).all()
        shelves: dict[str, ToyShelf] = {}
        for name, note in rows:
            found = shelves.setdefault(name, ToyShelf(name, 0, []))
            found.bookmarks += 1
            found.notes.append(note)
        return list(shelves.values())

    @operation(access="admin", admin_does="bookmark a toy shelf", handoff=True, cli=Cli("toy-bookmark"),
               http=Http("POST", "/api/v1/toy/shelves", out=ToyShelfOut, summary="Bookmark a toy shelf",
                         tag="toy", status_code=201, example={"shelf": "blue"}))
    def toy_bookmark(self, actor: Actor, shelf: str, note: str = "") -> ToyShelf:
        """Bookmark a toy shelf (at most three bookmarks a shelf)."""
        shelf = shelf.strip()
        if not shelf or len(shelf) > 100:
            raise InvalidInput("a toy shelf's name is 1 to 100 characters")
        with self.db.write() as session:
            held = session.execute(select(func.count()).select_from(bookmarks).where(bookmarks.c.shelf == shelf)).scalar_one()
            if held >= MAX_BOOKMARKS:
                raise ToyShelfFull(f"toy shelf {shelf!r} already holds {MAX_BOOKMARKS} bookmarks")
            session.execute(insert(bookmarks).values(shelf=shelf, note=note, created_at=datetime.now(timezone.utc)))
        return self.toy_shelves(actor, shelf)[0]

    @operation(access="admin", admin_does="tidy a toy shelf", handoff=True, cli=Cli("toy-tidy"))
    def toy_tidy(self, actor: Actor, shelf: str) -> int:
        """Drop a toy shelf's bookmarks, as a queued job (waits for it); how many were dropped."""
        return self.runtime.queued([enqueue_one(self.db, actor, "toy_tidy", payload={"shelf": shelf})]).result(60)

    @job_kind("toy_tidy", decode=_removed)
    def run_tidy(self, jobs: list, on_outcome=None) -> list[Outcome]:
        [job] = jobs
        with self.db.write() as session:
            gone = session.execute(delete(bookmarks).where(bookmarks.c.shelf == job.payload["shelf"])).rowcount
        return [Outcome("done", result={"removed": gone})]


register_service("toy_shelves", ToyShelfService)
# its page in the dashboard, for admins (the operations it calls are admin-only too)
register_panel(DashboardPanel("toy-shelves", {"en": "Toy shelves", "zh": "玩具书架"},
                              render="tests.plugins.toy.shelves_panel:render", access="admin"))
