"""The worker processes on this machine: how many share its cores.

Each process running queue workers (the dashboard's threads, ``core api``, every ``core worker``)
leaves a file named by its pid in this OS user's private runtime folder (``$XDG_RUNTIME_DIR``,
else ``/tmp/ragdesk-<uid>``, 0700) while its pool runs; a file whose process is gone is removed
by whoever counts next. Local embedding models size their threads from the count
(core/embeddings/_torch_threads.py): two workers that each took every core for torch ran a
40-file batch slower than one."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from core.errors import StoreError
from core.handoff.paths import private_dir
from core.ingest.jobs import process_alive

log = logging.getLogger(__name__)

FOLDER = "workers"


def _folder() -> Path | None:
    try:
        folder = private_dir() / FOLDER
        folder.mkdir(mode=0o700, exist_ok=True)
        return folder
    except (OSError, StoreError) as exc:  # no private place: each process sizes itself alone
        log.warning("cannot count the worker processes on this machine: %s", getattr(exc, "message", exc))
        return None


def register() -> None:
    folder = _folder()
    if folder is not None:
        fd = os.open(folder / str(os.getpid()), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        os.close(fd)


def unregister() -> None:
    folder = _folder()
    if folder is not None:
        (folder / str(os.getpid())).unlink(missing_ok=True)


def worker_processes() -> int:
    """Live worker processes on this machine (this one included when registered); at least 1."""
    folder = _folder()
    if folder is None:
        return 1
    alive = 0
    for entry in folder.iterdir():
        if not entry.name.isdigit():
            continue
        if process_alive(int(entry.name)):
            alive += 1
        else:
            entry.unlink(missing_ok=True)  # its process ended without a word (killed)
    return max(1, alive)
