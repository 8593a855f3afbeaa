"""The uvicorn server the API runs on (``python -m core api``, or beside the dashboard).

Stopping is bounded: requests still open ``GRACE_SECONDS`` after the signal are cut. Before that,
the app is told (``app.state.stopping``), so uploads waiting with ``?wait=true`` answer at once
with where their files stand rather than being cut (a hundred cut requests also wrote a hundred
tracebacks to the log)."""

from __future__ import annotations

from typing import Any

import uvicorn

GRACE_SECONDS = 3


class _Server(uvicorn.Server):
    def handle_exit(self, sig: int, frame: Any) -> None:
        self.config.app.state.stopping.set()
        super().handle_exit(sig, frame)


def make_server(app: Any, *, host: str, port: int, log_level: str = "warning", **config: Any) -> uvicorn.Server:
    """``app``: made by ``core.api.app.create_app``."""
    return _Server(uvicorn.Config(app, host=host, port=port, log_level=log_level, server_header=False,
                                  timeout_graceful_shutdown=GRACE_SECONDS, **config))


def request_stop(server: uvicorn.Server) -> None:
    """Stop a server from another thread (the dashboard closing)."""
    server.config.app.state.stopping.set()
    server.should_exit = True
