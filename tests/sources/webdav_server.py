"""A real WebDAV server (WsgiDAV over cheroot, from PyPI) on 127.0.0.1, serving a temp folder at
/dav/ with basic auth; it counts the requests it receives."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

USER, PASSWORD = "alice", "dav-Pw-93xQ!k"


@dataclass
class DavServer:
    root: Path
    base: str = ""
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)

    @property
    def folder(self) -> str:
        return f"{self.base}/dav/"


@contextmanager
def webdav_server(root: Path):
    from cheroot import wsgi
    from wsgidav.wsgidav_app import WsgiDAVApp

    app = WsgiDAVApp({
        "host": "127.0.0.1", "port": 0,
        "provider_mapping": {"/dav": str(root)},
        "simple_dc": {"user_mapping": {"*": {USER: {"password": PASSWORD}}}},
        "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "verbose": 0, "logging": {"enable_loggers": []},
        "property_manager": True, "lock_storage": True,
    })
    server_state = DavServer(root)

    def counted(environ, start_response):
        server_state.requests.append((environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")))
        return app(environ, start_response)

    server = wsgi.Server(("127.0.0.1", 0), counted)
    server.prepare()
    server_state.base = f"http://127.0.0.1:{server.bind_addr[1]}"
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield server_state
    finally:
        server.stop()
        thread.join(timeout=10)
