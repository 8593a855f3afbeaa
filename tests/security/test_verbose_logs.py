"""Threat: a token in the logs. Under ``python -m core -v api`` every access-log line became a
"--- Logging error --- ValueError: not enough values to unpack" traceback (the log scrubbing
emptied the record's arguments, which uvicorn's access formatter unpacks), and that report
printed the raw arguments: a token a client put in a URL (as a knowledge-base id) unmasked."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time

import httpx

from core.secrets.box import install_log_scrubbing
from tests.api.test_cli_api import _free_port
from tests.conftest import REPO_ROOT

TOKEN = "rd_" + "Zq7" * 14 + "x"


def test_verbose_api_access_lines_are_logged_and_masked(data_dir):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
    env.update(RAGDESK_EMBEDDING__MODEL="hash-64", HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-m", "core", "-v", "--data-dir", str(data_dir), "api", "--host",
                             "127.0.0.1", "--port", str(port)], cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)  # uvicorn's access lines go to stdout
    try:
        deadline, answered = time.monotonic() + 60, None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                answered = httpx.get(f"http://127.0.0.1:{port}/api/v1/kbs/{TOKEN}", timeout=2, trust_env=False,
                                     headers={"Authorization": f"Bearer {TOKEN}"})
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert answered is not None and answered.status_code == 401
        time.sleep(0.5)
    finally:
        proc.terminate()
        err, _ = proc.communicate(timeout=20)
    assert "Logging error" not in err and "Traceback" not in err, err[-3000:]
    assert TOKEN not in err and TOKEN[3:] not in err
    access = [line for line in err.splitlines() if "GET /api/v1/kbs/rd_" in line]
    assert access and all("401" in line for line in access), err[-3000:]


def test_scrubbed_records_keep_their_arguments_for_formatters():
    """In process: a record with arguments is still formattable the way its formatter expects."""
    from uvicorn.logging import AccessFormatter

    install_log_scrubbing()
    record = logging.getLogger("uvicorn.access").makeRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", f"/api/v1/kbs/{TOKEN}", "1.1", 401), None)
    line = AccessFormatter(fmt='%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False).format(record)
    assert TOKEN not in line and "/api/v1/kbs/rd_" in line and line.endswith("401 Unauthorized")
