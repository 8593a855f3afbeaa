"""The job kinds: what a worker does with a claimed job, and how its outcome reads back.

Each kind is declared by the service that owns the work (``@job_kind`` on a service method,
core/services/declare.py) and registered here when the engine's services are collected
(core/operations.py); the queue's workers and Futures read this registry only. A kind has a
handler ``run(engine, jobs, on_outcome) -> list[Outcome]`` (one outcome per job; only ``ingest``
is claimed in groups, and it reports each job's outcome to ``on_outcome`` as soon as that file
ends, so a cancelled or finished file's job closes before the rest of its group) and
``decode(jobs) -> object``, which turns the finished rows back into what the engine's synchronous
method returns (the ``Future`` of ``submit_*``).

Every long operation of the engine is one of these kinds, run only by queue workers:
- ``ingest``: uploads (their bytes in the blob store) and URL adds;
- ``retry``: a failed or cancelled file sent through ingest again;
- ``reindex``: a knowledge base rebuilt with the current settings;
- ``sync``: one source (Google Drive, web pages) brought up to date — by hand or by the scheduler;
- ``gdrive_import``: Drive files and folders added as a source;
- ``repair``: the doctor's repair.
Web-search page indexing is not a background job: it runs inside the question that asked for it
(the answer waits for it) and its pages expire with their collection.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, fields
from typing import Callable

from core.accounts import users
from core.db.database import Database
from core.db.models import Job
from core.errors import CoreError, error_identity, rebuild_error
from core.types import SYSTEM_ACTOR, Actor

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    state: str  # done | failed | cancelled
    result: dict | None = None
    error: str = ""
    message: str = ""
    retryable: bool = False  # failed on something passing (a server that cannot be reached): try again later


OnOutcome = Callable[[str, Outcome], None]  # (job id, its final outcome)


@dataclass(frozen=True)
class Kind:
    name: str
    run: Callable[["object", list[Job], OnOutcome | None], list[Outcome]]
    decode: Callable[[list[Job]], object]


# The registered kinds, by name (filled by register(): the engine's services, a plugin's own).
KINDS: dict[str, Kind] = {}


def register(new: Kind) -> Kind:
    """Add a job kind; a second kind of the same name is a bug (two owners of one queue row)."""
    if not new.name or not new.name.isidentifier():
        raise ValueError(f"a job kind's name must be a word (got {new.name!r})")
    known = KINDS.get(new.name)
    if known is not None and known != new:
        raise ValueError(f"job kind {new.name!r} is registered twice")
    KINDS[new.name] = new
    return new


def kind(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise CoreError(f"unknown job kind '{name}' (a newer release queued it?)") from None


def raised(exc: CoreError) -> dict:
    """A whole-job refusal, kept so the waiting caller gets the same error class (by name and module)."""
    identity = error_identity(exc)
    return {"raised": identity["kind"], "module": identity["module"], "message": exc.message, "key": exc.key,
            "params": exc.params}


def reraise(job: Job) -> None:
    """Raise the error a job's work raised, as its own class (core/errors.py's registry), if it did."""
    info = job.result or {}
    if "raised" in info:
        raise rebuild_error(str(info["raised"]), info.get("message") or job.error, module=str(info.get("module") or ""),
                            key=info.get("key", ""), params=info.get("params") or {})
    if job.state == "failed" and job.result is None:  # its worker died too often, or a bug stopped it
        raise CoreError(job.error or "the job failed")


def owner_of(db: Database, job: Job) -> Actor:
    """Who a job runs as: the account that queued it (as it is now: a disabled one is refused), or the local operator."""
    if job.owner_id == SYSTEM_ACTOR.user_id:
        return SYSTEM_ACTOR
    return users.actor_of(users.get_user(db, job.owner_id))


def known_fields(cls, data: dict):
    """``cls`` built from the fields of ``data`` it has (a row written by another release may have more)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})
