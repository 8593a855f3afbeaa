"""The HTTP API with 100 uploads waiting in the queue and questions asked meanwhile.

``python -m core api`` on a fresh data folder (a knowledge base of a few handbook pages indexed
first), with no worker to run the queue (``jobs.dashboard_workers`` 0): every upload stays queued.
Then, at once:

- 100 clients each upload a file with ``?wait=true`` (they wait in the server, up to ``--hold``
  seconds), after 100 plain uploads that are answered as soon as they are queued;
- 4 clients ask questions (``/api/v1/ask``) one after another;
- a probe reads ``/api/v1/kbs``, ``/api/v1/limits`` and ``/v1/models`` every 0.25 s.

Printed: the plain uploads' reply times, each probed route's and the questions' latencies
(p50 / p95 / max, and how many got no answer within 15 s or a 5xx), then how long the server
took to stop after SIGTERM with the waiting uploads still open.

    .venv/bin/python benchmarks/api_under_load.py [--embedder multilingual-e5-small] [--seconds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT / "core" / "demo" / "handbook_en.md"
QUESTIONS = ["How many days of annual leave do employees get?", "How long is paid parental leave?",
             "员工每年有几天带薪年假？", "Who approves travel expenses?"]
NO_ANSWER = 15.0


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(env: dict, *args: str, stdin: str = "") -> str:
    out = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env, input=stdin, capture_output=True,
                         text=True, timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"{args}: {out.stderr[-2000:]}")
    return out.stdout


def _summary(values: list[float], failures: int) -> str:
    if not values:
        return f"no answer at all ({failures} failed)"
    q = statistics.quantiles(values, n=20) if len(values) >= 2 else [values[0]] * 19
    return (f"n={len(values)}  p50 {statistics.median(values) * 1000:7.0f} ms  p95 {q[18] * 1000:7.0f} ms  "
            f"max {max(values) * 1000:7.0f} ms  failed/unanswered {failures}")


class Timed:
    def __init__(self) -> None:
        self.ok: list[float] = []
        self.failed = 0
        self.lock = threading.Lock()

    def run(self, fn) -> None:
        started = time.monotonic()
        try:
            reply = fn()
            good = reply.status_code < 500
        except httpx.HTTPError:
            good = False
        with self.lock:
            if good:
                self.ok.append(time.monotonic() - started)
            else:
                self.failed += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", default="multilingual-e5-small")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--uploads", type=int, default=100)
    ap.add_argument("--plain", type=int, default=100, help="plain uploads before (0: none)")
    ap.add_argument("--hold", type=float, default=300.0, help="?timeout= of the waiting uploads")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "QDRANT_URL")}
        env.update(RAGDESK_DATA_DIR=str(data), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   RAGDESK_EMBEDDING__MODEL=args.embedder, RAGDESK_JOBS__DASHBOARD_WORKERS="0",
                   XDG_RUNTIME_DIR=tempfile.mkdtemp(dir=tmp))
        _cli(env, "users", "create", "root", stdin="correct horse battery\n")
        token = json.loads(_cli(env, "--json", "tokens", "create", "--user", "root", "--label", "bench"))["token"]
        _cli(env, "kb", "create", "handbook")
        _cli(env, "ingest", "--kb", "handbook", str(HANDBOOK))
        port = _port()
        url = f"http://127.0.0.1:{port}"
        log = open(Path(tmp) / "api.log", "w")  # noqa: SIM115 (closed with the folder)
        proc = subprocess.Popen([sys.executable, "-m", "core", "api", "--port", str(port)], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=log, text=True)
        head = {"Authorization": f"Bearer {token}"}
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    httpx.get(f"{url}/openapi.json", timeout=2, trust_env=False)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            http = httpx.Client(base_url=url, headers=head, timeout=NO_ANSWER, trust_env=False)
            plain = Timed()
            for i in range(args.plain):
                body = f"# p{i}\n\nplain {i}\n".encode()
                plain.run(lambda i=i, body=body: http.post("/api/v1/kbs/handbook/files",
                                                           files=[("files", (f"plain-{i}.md", body))]))
            if args.plain:
                print(f"{args.plain} plain uploads, one after another (answered once queued): "
                      f"{_summary(plain.ok, plain.failed)}")

            waiting_status: list = []

            def waiting(i: int) -> None:
                try:
                    reply = httpx.post(f"{url}/api/v1/kbs/handbook/files", headers=head, trust_env=False,
                                       params={"wait": "true", "timeout": str(args.hold)}, timeout=args.hold + 60,
                                       files=[("files", (f"wait-{i}.md", f"# w{i}\n\nwaiting {i}\n".encode()))])
                    waiting_status.append(reply.status_code)
                except httpx.HTTPError as exc:
                    waiting_status.append(type(exc).__name__)

            waiters = [threading.Thread(target=waiting, args=(i,), daemon=True) for i in range(args.uploads)]
            for t in waiters:
                t.start()
            time.sleep(3)
            stop = time.monotonic() + args.seconds
            routes = {p: Timed() for p in ("/api/v1/kbs", "/api/v1/limits", "/v1/models")}
            asked = Timed()

            def asker(k: int) -> None:
                n = 0
                with httpx.Client(base_url=url, headers=head, timeout=NO_ANSWER * 4, trust_env=False) as c:
                    while time.monotonic() < stop:
                        q = QUESTIONS[(k + n) % len(QUESTIONS)]
                        asked.run(lambda: c.post("/api/v1/ask", json={"question": q}))
                        n += 1

            askers = [threading.Thread(target=asker, args=(k,), daemon=True) for k in range(4)]
            for t in askers:
                t.start()
            while time.monotonic() < stop:
                for path, timed in routes.items():
                    timed.run(lambda path=path: http.get(path))
                time.sleep(0.25)
            for t in askers:
                t.join(NO_ANSWER * 4)
            try:
                queued = sum(1 for j in http.get("/api/v1/jobs", params={"active_only": "true"}).json()
                             if j["state"] == "queued")
            except httpx.HTTPError:
                queued = "no answer"
            print(f"with {args.uploads} uploads waiting in the server (?wait=true) and 4 clients asking, "
                  f"for {args.seconds:.0f} s (jobs queued then: {queued}, the list shows at most 50):")
            for path, timed in routes.items():
                print(f"  GET {path:<16} {_summary(timed.ok, timed.failed)}")
            print(f"  POST /api/v1/ask      {_summary(asked.ok, asked.failed)}")
            sent = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(120)
                print(f"SIGTERM with the uploads still waiting: stopped in {time.monotonic() - sent:.1f} s")
            except subprocess.TimeoutExpired:
                print("SIGTERM with the uploads still waiting: still running after 120 s (killed)")
            for t in waiters:
                t.join(5)
            answered = Counter(waiting_status)
            print(f"the waiting uploads' answers: {dict(answered)}")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
