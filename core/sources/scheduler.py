"""The sync scheduler of a dashboard or worker process (APScheduler's BackgroundScheduler).

A tick every ``tick_seconds`` asks the engine to queue the watched sources that are due
(``Engine.queue_scheduled_syncs``): only the process holding the scheduler lease in the database
does (core/jobs/leader.py), so replicas and workers never double a sync; the syncs themselves
run on the queue's workers. The interval is read from the settings on each tick, so a change
applies without a restart. Ticks never overlap (max_instances=1) and missed ones are not
replayed (coalesce).
"""

from __future__ import annotations

import logging
from typing import Callable

from apscheduler.schedulers.background import BackgroundScheduler

from core.errors import CoreError

log = logging.getLogger(__name__)


class SyncScheduler:
    def __init__(self, run_pass: Callable[[], list], tick_seconds: float = 60.0):
        self._run_pass = run_pass
        self._scheduler = BackgroundScheduler(daemon=True, job_defaults={"coalesce": True, "max_instances": 1})
        self._scheduler.add_job(self._tick, "interval", seconds=tick_seconds, id="ragdesk-source-sync")
        self.passes = 0

    def _tick(self) -> None:
        try:
            self._run_pass()
        except CoreError as exc:  # e.g. the database is briefly unavailable: try again next tick
            log.warning("scheduled sync pass failed: %s", exc.message)
        self.passes += 1

    def start(self) -> None:
        if not self._scheduler.running:
            self._scheduler.start()

    def stop(self) -> None:
        """Stop ticking; a sync already running is let finish (the engine closes after this)."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=True)

    @property
    def running(self) -> bool:
        return self._scheduler.running
