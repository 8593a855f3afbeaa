"""The HTTP API served from a process that already holds an engine (the dashboard), on a thread.

On the embedded default one process holds the store. ``RAGDESK_API_PORT`` makes the dashboard
serve the API itself, so ``make run`` is still one command and no start order matters; a
separate ``python -m core api`` reaches the dashboard's engine through the hand-off instead.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

log = logging.getLogger("core.api")


@dataclass
class ServedAPI:
    server: object  # uvicorn.Server
    thread: threading.Thread

    @property
    def port(self) -> int:
        sockets = [s for srv in getattr(self.server, "servers", []) for s in srv.sockets]
        return sockets[0].getsockname()[1] if sockets else 0

    def stop(self, timeout: float = 10.0) -> None:
        from core.api.serve import request_stop

        request_stop(self.server)
        self.thread.join(timeout)


def serve_beside(engine, host: str = "127.0.0.1", port: int = 8600, start_timeout: float = 20.0) -> ServedAPI:
    """Start the API on ``host:port`` over ``engine`` (not owned: the caller closes it); returns once
    it listens. Port 0 picks a free one (``ServedAPI.port``)."""
    from core.api.app import create_app
    from core.api.backend import EngineBackend
    from core.api.serve import make_server

    server = make_server(create_app(EngineBackend(engine)), host=host, port=port, lifespan="off")
    thread = threading.Thread(target=server.run, name="ragdesk-api", daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise OSError(f"the HTTP API could not listen on {host}:{port} (is the port in use?)")
        time.sleep(0.05)
    served = ServedAPI(server, thread)
    log.warning("HTTP API served beside the dashboard on http://%s:%s", host, served.port)
    return served
