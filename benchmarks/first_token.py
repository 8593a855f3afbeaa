"""First-token latency of a streamed chat completion, in-process and through the hand-off.

One process plays both deployment shapes over one engine (embedded store, ``hash-64`` embedder,
the demo handbook as its knowledge base), which holds the store and serves the hand-off as the
dashboard does:

- ``in-process``: the API served beside that engine (``serve_beside``, what ``RAGDESK_API_PORT``
  does in the dashboard);
- ``hand-off``: the API over ``HandoffBackend`` (what ``python -m core api`` does while the
  dashboard holds the store): every call crosses the Unix socket, each answer event as it happens.

The model is the tests' local stand-in speaking the OpenAI streaming protocol, writing its reply
in ``--pieces`` pieces ``--pace`` seconds apart. A client streams ``/v1/chat/completions`` and
notes when the first content chunk and ``[DONE]`` arrive. Printed per shape: the medians of
first-token time and total time, and the ratios that survive a busy machine: first token /
total (near 1 would mean the answer is sent only once complete) and hand-off / in-process.

    .venv/bin/python benchmarks/first_token.py [--runs 10] [--pieces 40] [--pace 0.02]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from core.api.app import create_app  # noqa: E402
from core.api.backend import HandoffBackend  # noqa: E402
from core.api.beside import serve_beside  # noqa: E402
from core.api.serve import make_server, request_stop  # noqa: E402
from core.config import RuntimeConfig  # noqa: E402
from core.engine import Engine  # noqa: E402
from core.ingest.service import Upload  # noqa: E402
from tests.fakes.llm_server import fake_llm_server, text  # noqa: E402

QUESTION = "How many days of annual leave do employees get?"


def serve_handoff(data_dir: Path) -> tuple[object, threading.Thread, str]:
    server = make_server(create_app(HandoffBackend(data_dir)), host="127.0.0.1", port=0, lifespan="off")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, thread, f"http://127.0.0.1:{port}"


def one_stream(url: str, token: str) -> tuple[float, float]:
    """(seconds to the first content chunk, seconds to [DONE])."""
    body = {"model": "ragdesk", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}
    first = None
    t0 = time.perf_counter()
    with httpx.Client(timeout=120, trust_env=False) as http:
        with http.stream("POST", f"{url}/v1/chat/completions", json=body,
                         headers={"Authorization": f"Bearer {token}"}) as reply:
            reply.raise_for_status()
            for line in reply.iter_lines():
                if first is None and '"content": "' in line and '"content": ""' not in line:
                    first = time.perf_counter() - t0
                if line == "data: [DONE]":
                    break
    total = time.perf_counter() - t0
    if first is None:
        raise SystemExit("the stream carried no content")
    return first, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--pieces", type=int, default=40, help="pieces the stand-in model writes")
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between the model's pieces")
    args = parser.parse_args()
    for name in ("DATABASE_URL", "QDRANT_URL"):
        os.environ.pop(name, None)
    os.environ["RAGDESK_EMBEDDING__MODEL"] = "hash-64"
    words = ("Employees get twenty-five days of annual leave [1]. " * 8)[: args.pieces * 4]
    script = [text(words, pace=args.pace)] * (2 * args.runs + 2)
    with tempfile.TemporaryDirectory() as tmp, fake_llm_server(script) as llm:
        data_dir = Path(tmp) / "data"
        engine = Engine(RuntimeConfig.from_env(data_dir), serve_handoff=True)
        try:
            admin = engine.actor_for(engine.sign_up("root", "correct horse battery").id)
            engine.create_kb(admin, "handbook", "the demo handbook")
            handbook = (REPO / "core" / "demo" / "handbook_en.md").read_bytes()
            engine.ingest(admin, "handbook", [Upload("handbook_en.md", handbook)])
            engine.save_settings(admin, {"llm": {"provider": "openai", "base_url": llm.openai_url,
                                                 "api_key": "sk-bench", "model": "fake-model"}})
            token = engine.create_api_token(admin, "bench").token
            beside = serve_beside(engine, port=0)
            handoff, thread, handoff_url = serve_handoff(data_dir)
            shapes = {"in-process": f"http://127.0.0.1:{beside.port}", "hand-off": handoff_url}
            try:
                for url in shapes.values():
                    one_stream(url, token)  # warm-up: first query embedding, connections
                results: dict[str, list[tuple[float, float]]] = {name: [] for name in shapes}
                for _ in range(args.runs):  # interleaved: a busy machine weighs on both shapes alike
                    for name, url in shapes.items():
                        results[name].append(one_stream(url, token))
            finally:
                request_stop(handoff)
                thread.join(10)
                beside.stop()
        finally:
            engine.close()
    model_writes = args.pieces * args.pace
    print(f"stand-in model: {args.pieces} pieces, {args.pace * 1000:.0f} ms apart (~{model_writes * 1000:.0f} ms "
          f"of writing); {args.runs} runs per shape, medians")
    medians = {}
    for name, runs in results.items():
        first = statistics.median(r[0] for r in runs)
        total = statistics.median(r[1] for r in runs)
        medians[name] = (first, total)
        print(f"  {name:<11} first token {first * 1000:7.1f} ms   total {total * 1000:7.1f} ms   "
              f"first/total {first / total:.2f}")
    (f_in, t_in), (f_ho, t_ho) = medians["in-process"], medians["hand-off"]
    print(f"  hand-off / in-process: first token x{f_ho / f_in:.2f}, total x{t_ho / t_in:.2f}")


if __name__ == "__main__":
    main()
