"""The CLI beside ``python -m core api`` (which holds the embedded store): ``demo`` is handed off and
loads the demo there, and every note or refusal names the real holder — the API server, not "the
running dashboard"."""

from __future__ import annotations

import json
import signal

from tests.api.test_api_process import _start_api
from tests.jobs.conftest import cli_env, run


def test_demo_and_the_hand_off_notes_beside_the_api(data_dir):
    env = cli_env(data_dir)
    proc, _ = _start_api(env)
    try:
        demo = run(env, "--json", "demo", check=False)
        assert demo.returncode == 0, demo.stderr[-2000:]
        out = json.loads(demo.stdout)
        assert out["kb"] == "demo-handbook" and {f["status"] for f in out["files"]} == {"indexed"}, out
        assert "note: the API server (python -m core api" in demo.stderr, demo.stderr
        assert "dashboard" not in demo.stderr
        listed = run(env, "--json", "kb", "list")
        assert [kb["name"] for kb in json.loads(listed.stdout)] == ["demo-handbook"]
        again = json.loads(run(env, "--json", "demo").stdout)
        assert again["created"] is False
        refused = run(env, "kb", "index", "demo-handbook", check=False)  # not handed off: refused, naming the holder
        assert refused.returncode != 0 and "'kb index' is not handed off" in refused.stderr
        assert "the API server (python -m core api" in refused.stderr and "dashboard holds" not in refused.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
