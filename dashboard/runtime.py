"""The one engine of this server process, shared by every session.

The embedded vector store admits one process at a time, so the engine is opened once
(``st.cache_resource``) and closed when the cache is cleared (tests, server shutdown).
"""

from __future__ import annotations

import os

import streamlit as st

from core import Engine

# A CLI run holding the store briefly (an ingest, a doctor) should not fail the first page load.
STORE_WAIT_SECONDS = 10.0
_SERVED_API: dict = {}  # id(engine) -> the HTTP API this process serves beside it (RAGDESK_API_PORT)


def _close(engine: Engine) -> None:
    served = _SERVED_API.pop(id(engine), None)
    if served is not None:
        served.stop()
    engine.stop_sync_scheduler()
    engine.close()


@st.cache_resource(show_spinner=False, on_release=_close)
def _open_engine(data_dir: str) -> Engine:
    # serve_handoff: CLI commands run here while the dashboard holds the store (see core/handoff/channel.py)
    engine = Engine.open(data_dir or None, store_wait_seconds=STORE_WAIT_SECONDS, serve_handoff=True)
    engine.start_workers()  # the job queue's workers (jobs.dashboard_workers threads): uploads, reindex, syncs
    engine.start_sync_scheduler()  # the leader among processes queues the due syncs (gdrive.sync_interval_minutes)
    _serve_api_beside(engine)
    return engine


def _serve_api_beside(engine: Engine) -> None:
    """RAGDESK_API_PORT: this process serves the HTTP API too (it holds the store; see core/api/beside.py)."""
    port = os.environ.get("RAGDESK_API_PORT", "").strip()
    if not port:
        return
    from core.api.beside import serve_beside

    try:
        _SERVED_API[id(engine)] = serve_beside(engine, os.environ.get("RAGDESK_API_HOST", "127.0.0.1"), int(port))
    except (OSError, ValueError) as exc:  # the dashboard still works; the log says why the API does not
        import logging

        logging.getLogger("dashboard").error("RAGDESK_API_PORT=%s: %s", port, exc)


def get_engine() -> Engine:
    """The engine for the data folder in RAGDESK_DATA_DIR (default ./data)."""
    return _open_engine(os.environ.get("RAGDESK_DATA_DIR", ""))
