"""``python -m core api``: the command starts the server on the address given and serves the API."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx

from tests.conftest import REPO_ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_python_m_core_api_serves_the_schema_and_refuses_without_a_token(data_dir):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update(RAGDESK_EMBEDDING__MODEL="hash-64", HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-m", "core", "--data-dir", str(data_dir), "api", "--host", "127.0.0.1",
                             "--port", str(port)], cwd=REPO_ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline, schema = time.monotonic() + 60, None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                schema = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=2, trust_env=False)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert schema is not None and schema.status_code == 200, proc.poll()
        assert "/v1/chat/completions" in schema.json()["paths"]
        refused = httpx.get(f"http://127.0.0.1:{port}/api/v1/kbs", timeout=5, trust_env=False)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "not_authenticated"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert f"ragdesk API on http://127.0.0.1:{port}" in err and "its own engine" in err
