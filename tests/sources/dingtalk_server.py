"""A local stand-in for DingTalk's open API on 127.0.0.1, written from DingTalk's public API
documentation (paths, parameters and fields as docs/sources.md lists them):

- ``POST /v1.0/oauth2/accessToken`` {appKey, appSecret} -> {accessToken, expireIn}; a wrong secret
  is HTTP 400 with DingTalk's error JSON {code, message, requestid};
- ``GET /v2.0/wiki/workspaces/{workspaceId}?operatorId=`` -> {workspace: {workspaceId, name, rootNodeId, …}};
- ``GET /v2.0/wiki/workspaces?operatorId=&maxResults=&nextToken=`` -> {workspaces, nextToken};
- ``GET /v2.0/wiki/nodes?parentNodeId=&operatorId=&maxResults=&nextToken=`` -> {nodes, nextToken},
  pages of at most ``page_cap`` (short pages, so every nextToken is followed);
- ``POST /v2.0/doc/me/export/submit`` {dentryUuid, operatorId, targetFormat} -> {taskId};
  ``GET /v2.0/doc/me/export/task/query?taskId=&operatorId=`` -> {status, downloadUrl} (the first
  query says "processing"); ``GET /download/{taskId}`` -> the exported bytes (no token: pre-signed).

``targetFormat`` docx is the documented one; markdown is served too (an option ragdesk keeps for
tenants that accept it). Every call but the token and the download needs
``x-acs-dingtalk-access-token`` (401 InvalidAuthentication otherwise, also once a token expired or
was revoked; ``expired_answer`` gives another status or an older API's errcode body). ``fail_next`` scripts
errors (a 429 with Retry-After, a 403 QpsLimit code). It counts what it receives.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

APP_KEY, APP_SECRET, OPERATOR = "dingappkey123", "dt-Secret-7Qx!93kZ", "unionIdOperator01"
WORKSPACE = "ws1"


@dataclass
class Node:
    node_id: str
    name: str
    parent: str
    folder: bool = False
    text: str = ""
    category: str = "ALIDOC"
    extension: str = "adoc"
    modified: int = 1

    def model(self) -> dict:
        stamp = 1_700_000_000_000 + self.modified * 1000
        return {"nodeId": self.node_id, "name": self.name, "workspaceId": WORKSPACE,
                "type": "FOLDER" if self.folder else "FILE",
                "category": "" if self.folder else self.category,
                "extension": "" if self.folder else self.extension,
                "hasChildren": self.folder, "modifiedTimestamp": stamp,
                "modifiedTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp / 1000)),
                "url": f"https://alidocs.dingtalk.com/i/nodes/{self.node_id}"}


@dataclass
class DingTalkState:
    base: str = ""
    token_lifetime: int = 7200
    page_cap: int = 2
    download_base: str = ""  # where downloadUrl points ("" = this server)
    tokens: dict[str, float] = field(default_factory=dict)  # token -> expiry (time.time())
    nodes: dict[str, Node] = field(default_factory=dict)
    tasks: dict[str, dict] = field(default_factory=dict)
    requests: list[tuple[str, str, dict]] = field(default_factory=list)  # (method, path, headers)
    bodies: list[str] = field(default_factory=list)
    fail_next: list[tuple[str, int, dict, dict]] = field(default_factory=list)  # (path prefix, status, body, headers)
    # how a token no longer valid is answered: the v2.0 APIs' 401 InvalidAuthentication, or another
    # status with that code, or an older API's {"errcode": 40001, "errmsg": ...}
    expired_answer: tuple[int, dict] = (401, {})
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.nodes["root"] = Node("root", "", "", folder=True)

    def add(self, node_id: str, name: str, parent: str = "root", *, folder: bool = False, text: str = "", **kw) -> Node:
        node = Node(node_id, name, parent, folder=folder, text=text, **kw)
        self.nodes[node_id] = node
        return node

    def edit(self, node_id: str, **changes) -> None:
        node = self.nodes[node_id]
        for k, v in changes.items():
            setattr(node, k, v)
        node.modified += 1

    def count(self, method: str, prefix: str) -> int:
        return sum(1 for m, p, _ in self.requests if m == method and p.startswith(prefix))

    def revoke_tokens(self) -> None:
        self.tokens.clear()


def _error(code: str, message: str) -> dict:
    return {"code": code, "message": message, "requestid": uuid.uuid4().hex}


class _Handler(BaseHTTPRequestHandler):
    state: DingTalkState

    def log_message(self, *args) -> None:  # quiet
        pass

    def _reply(self, status: int, body: dict | bytes, headers: dict | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream" if isinstance(body, bytes) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self.state.bodies.append(raw)
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return {}

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        st = self.state
        parts = urlsplit(self.path)
        path, query = parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}
        with st.lock:
            st.requests.append((method, path, dict(self.headers)))
            scripted = next((f for f in st.fail_next if path.startswith(f[0])), None)
            if scripted:
                st.fail_next.remove(scripted)
        body = self._body() if method == "POST" else {}
        if scripted:
            return self._reply(scripted[1], scripted[2], scripted[3])
        if path == "/v1.0/oauth2/accessToken" and method == "POST":
            if body.get("appKey") != APP_KEY or body.get("appSecret") != APP_SECRET:
                return self._reply(400, _error("invalidClientIdOrSecret", "无效的clientId或者clientSecret"))
            token = uuid.uuid4().hex
            st.tokens[token] = time.time() + st.token_lifetime
            return self._reply(200, {"accessToken": token, "expireIn": st.token_lifetime})
        if path.startswith("/download/") and method == "GET":
            task = st.tasks.get(path.rsplit("/", 1)[-1])
            return self._reply(200, task["data"]) if task else self._reply(404, _error("NotFound", "no such file"))
        token = self.headers.get("x-acs-dingtalk-access-token", "")
        if st.tokens.get(token, 0) < time.time():
            status, body = st.expired_answer
            return self._reply(status, body or _error("InvalidAuthentication", "不合法的access_token"))
        if "operatorId" not in query and not body.get("operatorId"):
            return self._reply(400, _error("MissingoperatorId", "operatorId is mandatory for this action."))
        if path == "/v2.0/wiki/workspaces" and method == "GET":
            spaces = [{"workspaceId": WORKSPACE, "name": "Team handbook", "rootNodeId": "root", "type": "TEAM",
                       "url": f"https://alidocs.dingtalk.com/i/spaces/{WORKSPACE}/overview"}]
            return self._reply(200, {"workspaces": spaces})
        if path == f"/v2.0/wiki/workspaces/{WORKSPACE}" and method == "GET":
            return self._reply(200, {"workspace": {"workspaceId": WORKSPACE, "name": "Team handbook",
                                                   "rootNodeId": "root", "type": "TEAM"}})
        if path.startswith("/v2.0/wiki/workspaces/"):
            return self._reply(404, _error("resourceNotFound", "workspace not found"))
        if path == "/v2.0/wiki/nodes" and method == "GET":
            return self._list_nodes(query)
        if path == "/v2.0/doc/me/export/submit" and method == "POST":
            node = st.nodes.get(str(body.get("dentryUuid")))
            if node is None or node.folder:
                return self._reply(404, _error("docNotExist", "document not found"))
            fmt = body.get("targetFormat")
            data = node.text.encode() if fmt == "markdown" else _docx(node.text)
            task = uuid.uuid4().hex
            st.tasks[task] = {"data": data, "queried": 0}
            return self._reply(200, {"taskId": task})
        if path == "/v2.0/doc/me/export/task/query" and method == "GET":
            task = st.tasks.get(query.get("taskId", ""))
            if task is None:
                return self._reply(404, _error("taskNotExist", "task not found"))
            task["queried"] += 1
            if task["queried"] == 1:
                return self._reply(200, {"status": "processing"})
            where = st.download_base or st.base
            return self._reply(200, {"status": "success", "downloadUrl": f"{where}/download/{query['taskId']}"})
        return self._reply(404, _error("NotFound", f"no such API {method} {path}"))

    def _list_nodes(self, query: dict) -> None:
        st = self.state
        parent = query.get("parentNodeId", "")
        if parent not in st.nodes:
            return self._reply(404, _error("nodeNotExist", "parent node not found"))
        size = min(int(query.get("maxResults", 30)), st.page_cap)
        children = sorted((n for n in st.nodes.values() if n.parent == parent), key=lambda n: n.node_id)
        start = int(query.get("nextToken") or 0)
        page = children[start:start + size]
        more = start + size < len(children)
        return self._reply(200, {"nodes": [n.model() for n in page], **({"nextToken": str(start + size)} if more else {})})


def _docx(text: str) -> bytes:
    import io

    import docx

    doc = docx.Document()
    for line in text.splitlines():
        doc.add_paragraph(line.lstrip("# "))
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


@contextmanager
def dingtalk_server():
    state = DingTalkState()
    handler = type("Handler", (_Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
