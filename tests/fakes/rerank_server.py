"""A /rerank endpoint answering as text-embeddings-inference and Cohere (Jina) document it: TEI
takes {"query", "texts"}, answers [{"index", "score"}] and refuses more texts than its
--max-client-batch-size (32 by default) with 413 {"error", "error_type"}; Cohere answers
{"results": [{"index", "relevance_score"}]} and errors {"message"}."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

MAX_CLIENT_BATCH = 32


def _trailing_number(text: str) -> float:
    """A text's score is its number (the trailing digits) over 100: the order can be checked."""
    return int(text.split()[-1]) / 100


@contextmanager
def rerank_server(shape: str = "cohere", status: int = 200, error: Any = None,
                  score: Callable[[str], float] = _trailing_number) -> Iterator[tuple[str, list[dict]]]:
    """``shape``: "tei" or "cohere"; ``score``: each text's relevance; ``error``: the body of a
    refusal with ``status``. Yields the endpoint's URL and the request bodies it received."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            texts = body.get("texts") if shape == "tei" else body.get("documents")
            if error is not None:
                return self._send(status, error)
            if shape == "tei" and len(texts) > MAX_CLIENT_BATCH:
                return self._send(413, {"error": f"batch size {len(texts)} > maximum allowed batch size "
                                                 f"{MAX_CLIENT_BATCH}", "error_type": "Validation"})
            ranked = sorted(({"index": i, "score": score(t)} for i, t in enumerate(texts)),
                            key=lambda r: -r["score"])
            if shape == "tei":
                return self._send(200, ranked)
            return self._send(200, {"id": "r", "results": [{"index": r["index"], "relevance_score": r["score"]}
                                                           for r in ranked], "meta": {}})

        def _send(self, code: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/rerank", seen
    finally:
        server.shutdown()
        server.server_close()
