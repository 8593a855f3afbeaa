"""A Google Drive v3 + OAuth 2.0 server on 127.0.0.1, written from Google's public API reference.

Speaks what ragdesk uses: ``files.list`` (``q`` with ``in parents`` / ``trashed`` /
``sharedWithMe`` / ``name contains``, ``fields``, paging), ``files.get`` (metadata and
``alt=media``), ``files.export``, ``changes.getStartPageToken``, ``changes.list``, ``drives.list``,
``about.get``; and the OAuth authorize (auto-consent redirect with ``code`` + ``state``), token
(authorization_code with PKCE S256 check, refresh_token) and revoke endpoints.

Like Drive: pages are short (``max_page`` items whatever ``pageSize`` asks); native Google files
refuse ``alt=media`` (403 fileNotDownloadable); shared-drive items appear only with
``supportsAllDrives`` / ``includeItemsFromAllDrives``; a move bumps ``version`` but not
``modifiedTime``; a page token from before ``expire_change_tokens()`` answers 410. Each account
sees only its own files. Scripted failures (``fail_next``) give 429/403 with ``Retry-After``.
"""

from __future__ import annotations

import os

import base64
import hashlib
import itertools
import json
import re
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

FOLDER = "application/vnd.google-apps.folder"
DOC = "application/vnd.google-apps.document"
SHEET = "application/vnd.google-apps.spreadsheet"
SLIDES = "application/vnd.google-apps.presentation"
SHORTCUT = "application/vnd.google-apps.shortcut"
FORM = "application/vnd.google-apps.form"
EXPORT_LIMIT = 10 * 1024 * 1024


@dataclass
class DriveFile:
    id: str
    name: str
    mimeType: str
    parents: list[str]
    account: str
    content: bytes = b""  # stored files
    exports: dict[str, bytes] = field(default_factory=dict)  # native files: export mime -> bytes
    trashed: bool = False
    version: int = 1
    modified: datetime = field(default_factory=lambda: datetime(2026, 11, 1, tzinfo=timezone.utc))
    driveId: str = ""
    shared_with_me: bool = False
    target: str = ""  # shortcut target
    export_too_large: bool = False

    def meta(self) -> dict:
        out = {"kind": "drive#file", "id": self.id, "name": self.name, "mimeType": self.mimeType,
               "parents": list(self.parents), "trashed": self.trashed, "version": str(self.version),
               "modifiedTime": self.modified.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
               "webViewLink": f"https://drive.example/file/d/{self.id}/view",
               "owners": [{"displayName": self.account.title(), "emailAddress": f"{self.account}@example.com"}]}
        if not self.mimeType.startswith("application/vnd.google-apps."):
            out["md5Checksum"] = hashlib.md5(self.content).hexdigest()
            out["size"] = str(len(self.content))
        if self.driveId:
            out["driveId"] = self.driveId
        if self.target:
            out["shortcutDetails"] = {"targetId": self.target, "targetMimeType": "text/plain"}
        return out


def _fields(spec: str) -> dict | None:
    """'a,b(c,d)' -> {'a': None, 'b': {'c': None, 'd': None}}; None = everything."""
    if not spec or spec == "*":
        return None
    out, depth, start = {}, 0, 0
    parts = []
    for i, ch in enumerate(spec + ","):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(spec[start:i].strip())
            start = i + 1
    for part in filter(None, parts):
        if "(" in part:
            name, inner = part.split("(", 1)
            out[name] = _fields(inner[:-1])
        else:
            out[part] = None
    return out


def _pick(value, spec: dict | None):
    if spec is None:
        return value
    if isinstance(value, list):
        return [_pick(v, spec) for v in value]
    if isinstance(value, dict):
        return {k: _pick(v, spec[k]) for k, v in value.items() if k in spec}
    return value


_CLAUSE = [
    (re.compile(r"^'((?:[^'\\]|\\.)*)' in parents$"), "parent"),
    (re.compile(r"^trashed = (true|false)$"), "trashed"),
    (re.compile(r"^sharedWithMe = true$"), "shared"),
    (re.compile(r"^name contains '((?:[^'\\]|\\.)*)'$"), "name"),
]


def _matcher(q: str):
    tests = []
    for clause in filter(None, (c.strip() for c in q.split(" and "))):
        for pattern, kind in _CLAUSE:
            m = pattern.match(clause)
            if m:
                arg = m.group(1).replace("\\'", "'") if m.groups() else ""
                tests.append((kind, arg))
                break
        else:
            raise ValueError(f"unsupported query clause: {clause}")

    def ok(f: DriveFile) -> bool:
        for kind, arg in tests:
            if kind == "parent" and arg not in f.parents:
                return False
            if kind == "trashed" and f.trashed != (arg == "true"):
                return False
            if kind == "shared" and not f.shared_with_me:
                return False
            if kind == "name" and arg.lower() not in f.name.lower():
                return False
        return True

    return ok


class FakeDrive:
    def __init__(self, *, max_page: int = 2, client_id: str = "test-client", client_secret: str = "test-secret"):
        self.max_page = max_page
        self.client_id, self.client_secret = client_id, client_secret
        self.files: dict[str, DriveFile] = {}
        self.drives: list[dict] = []
        self.changes: list[tuple[str, str]] = []  # (file id, account)
        self.token_epoch = 0  # page tokens are "epoch:position"; expiring bumps the epoch
        self.fail_next: list[tuple[int, str, dict]] = []  # (status, reason, headers) for the next API calls
        # (API path, body): the next call to that path answers 200 with this body as it is — a
        # reply the client does not expect (a field missing, a wrong type)
        self.odd_replies: list[tuple[str, dict]] = []
        self.refresh_tokens: dict[str, str] = {}  # token -> account
        self.access_tokens: dict[str, str] = {}  # token -> account
        self.codes: dict[str, tuple[str, str, str]] = {}  # code -> (account, challenge, redirect_uri)
        self.consent_account = "alice"
        self.requests: list[tuple[str, str]] = []  # (method, path?query)
        # this process's OAUTHLIB_INSECURE_TRANSPORT as each request arrived (the client runs here too)
        self.insecure_transport_env: list[str | None] = []
        self.revoked: list[str] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._clock = datetime(2026, 11, 1, tzinfo=timezone.utc)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        for account in ("alice", "bob"):
            self.files[f"root-{account}"] = DriveFile(f"root-{account}", "My Drive", FOLDER, [], account)

    # ------------------------------------------------------------ test helpers: Drive content
    def settings(self, redirect_uri: str = "http://127.0.0.1:8501/google_drive") -> dict:
        return {"enabled": True, "client_id": self.client_id, "client_secret": self.client_secret,
                "redirect_uri": redirect_uri, "api_base_url": self.url,
                "oauth_auth_url": f"{self.url}/o/oauth2/auth", "oauth_token_url": f"{self.url}/token",
                "revoke_url": f"{self.url}/revoke"}

    def _tick(self) -> datetime:
        self._clock += timedelta(minutes=1)
        return self._clock

    def _changed(self, f: DriveFile) -> None:
        self.changes.append((f.id, f.account))

    def add(self, name: str, mime: str, parent: str, *, account: str = "alice", content: bytes = b"",
            exports: dict | None = None, drive_id: str = "", shared_with_me: bool = False, target: str = "") -> str:
        with self._lock:
            fid = f"f{next(self._ids)}"
            parents = [parent if parent != "root" else f"root-{account}"] if parent else []
            f = DriveFile(fid, name, mime, parents, account, content, dict(exports or {}), driveId=drive_id,
                          shared_with_me=shared_with_me, target=target, modified=self._tick())
            self.files[fid] = f
            self._changed(f)
            return fid

    def folder(self, name: str, parent: str = "root", **kw) -> str:
        return self.add(name, FOLDER, parent, **kw)

    def shared_drive(self, name: str, account: str = "alice") -> str:
        drive_id = f"d{next(self._ids)}"
        self.drives.append({"id": drive_id, "name": name, "account": account})
        self.files[drive_id] = DriveFile(drive_id, name, FOLDER, [], account, driveId=drive_id)
        return drive_id

    def edit(self, fid: str, *, content: bytes | None = None, exports: dict | None = None, name: str | None = None) -> None:
        with self._lock:
            f = self.files[fid]
            if content is not None:
                f.content = content
            if exports is not None:
                f.exports = dict(exports)
            if name is not None:
                f.name = name
            f.version += 1
            f.modified = self._tick()
            self._changed(f)

    def trash(self, fid: str) -> None:
        with self._lock:
            f = self.files[fid]
            f.trashed, f.version = True, f.version + 1
            self._changed(f)

    def move(self, fid: str, new_parent: str) -> None:
        """Like Drive: parents change, version moves on, modifiedTime does not."""
        with self._lock:
            f = self.files[fid]
            f.parents, f.version = [new_parent if new_parent != "root" else f"root-{f.account}"], f.version + 1
            self._changed(f)

    def delete(self, fid: str) -> None:
        with self._lock:
            f = self.files.pop(fid)
            self.changes.append((fid, f.account))

    def expire_change_tokens(self) -> None:
        """Every page token handed out so far answers 410 from now on."""
        self.token_epoch += 1

    def expire_access_tokens(self) -> None:
        self.access_tokens.clear()

    def revoke_account(self, account: str) -> None:
        for token in [t for t, a in self.refresh_tokens.items() if a == account]:
            del self.refresh_tokens[token]
        self.access_tokens = {t: a for t, a in self.access_tokens.items() if a != account}

    def issue_refresh_token(self, account: str = "alice") -> str:
        token = "1//refresh-" + secrets.token_urlsafe(12)
        self.refresh_tokens[token] = account
        return token

    def api_calls(self, prefix: str) -> int:
        return sum(1 for _, p in self.requests if p.startswith(prefix))

    # ------------------------------------------------------------ server
    def start(self) -> "FakeDrive":
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FakeDrive":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _handler(drive: FakeDrive):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, status: int, body, headers: dict | None = None, content_type: str = "application/json") -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, reason: str, message: str, headers: dict | None = None) -> None:
            self._send(status, {"error": {"code": status, "message": message,
                                          "errors": [{"reason": reason, "message": message, "domain": "global"}]}}, headers)

        def _form(self) -> dict:
            length = int(self.headers.get("Content-Length") or 0)
            return {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}

        def do_GET(self) -> None:
            drive.requests.append(("GET", self.path))
            url = urlsplit(self.path)
            args = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/o/oauth2/auth":
                return self._authorize(args)
            if not url.path.startswith("/drive/v3/"):
                return self._error(404, "notFound", "no such endpoint")
            auth = self.headers.get("Authorization", "")
            account = drive.access_tokens.get(auth.removeprefix("Bearer "))
            if account is None:
                return self._error(401, "authError", "Invalid Credentials", {"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"'})
            if drive.fail_next:
                status, reason, headers = drive.fail_next.pop(0)
                return self._error(status, reason, "scripted failure", headers)
            api_path = url.path[len("/drive/v3/"):]
            odd = next((r for r in drive.odd_replies if r[0] == api_path), None)
            if odd is not None:
                drive.odd_replies.remove(odd)
                return self._send(200, odd[1])
            _Api(self, drive, account, args).route(api_path)

        def do_POST(self) -> None:
            drive.requests.append(("POST", self.path))
            drive.insecure_transport_env.append(os.environ.get("OAUTHLIB_INSECURE_TRANSPORT"))
            path = urlsplit(self.path).path
            form = self._form()
            if path == "/token":
                return self._token(form)
            if path == "/revoke":
                token = form.get("token", "")
                known = token in drive.refresh_tokens or token in drive.access_tokens
                account = drive.refresh_tokens.get(token) or drive.access_tokens.get(token)
                if account:
                    drive.revoke_account(account)
                drive.revoked.append(token)
                return self._send(200 if known else 400, {} if known else {"error": "invalid_token"})
            self._error(404, "notFound", "no such endpoint")

        def _authorize(self, args: dict) -> None:
            if args.get("client_id") != drive.client_id or args.get("response_type") != "code":
                return self._send(400, {"error": "invalid_request"})
            if args.get("code_challenge_method") != "S256" or not args.get("code_challenge"):
                return self._send(400, {"error": "invalid_request", "error_description": "PKCE required"})
            code = "4/code-" + secrets.token_urlsafe(8)
            drive.codes[code] = (drive.consent_account, args["code_challenge"], args.get("redirect_uri", ""))
            target = args["redirect_uri"] + "?" + urlencode({"code": code, "state": args.get("state", ""),
                                                             "scope": args.get("scope", "")})
            self._send(302, b"", {"Location": target}, "text/plain")

        def _token(self, form: dict) -> None:
            basic = self.headers.get("Authorization", "")
            if basic.startswith("Basic "):  # client_secret_basic (RFC 6749 2.3.1), as Google accepts too
                cid, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
                form = dict(form, client_id=cid, client_secret=secret)
            if form.get("client_id") != drive.client_id or form.get("client_secret") != drive.client_secret:
                return self._send(401, {"error": "invalid_client"})
            grant = form.get("grant_type")
            if grant == "authorization_code":
                entry = drive.codes.pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "")
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
                if entry is None or entry[1] != challenge or entry[2] != form.get("redirect_uri"):
                    return self._send(400, {"error": "invalid_grant"})
                account, refresh = entry[0], drive.issue_refresh_token(entry[0])
            elif grant == "refresh_token":
                refresh = form.get("refresh_token", "")
                account = drive.refresh_tokens.get(refresh)
                if account is None:
                    return self._send(400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."})
            else:
                return self._send(400, {"error": "unsupported_grant_type"})
            access = "ya29.access-" + secrets.token_urlsafe(12)
            drive.access_tokens[access] = account
            body = {"access_token": access, "expires_in": 3599, "token_type": "Bearer",
                    "scope": "https://www.googleapis.com/auth/drive.readonly"}
            if grant == "authorization_code":
                body["refresh_token"] = refresh
            self._send(200, body)

    return Handler


class _Api:
    """The Drive v3 resources, for one authenticated account."""

    def __init__(self, handler, drive: FakeDrive, account: str, args: dict):
        self.h, self.drive, self.account, self.args = handler, drive, account, args
        self.all_drives = args.get("supportsAllDrives") == "true"
        self.include_all = args.get("includeItemsFromAllDrives") == "true"

    def route(self, path: str) -> None:
        parts = path.split("/")
        if path == "files":
            return self.files_list()
        if path == "about":
            return self.h._send(200, _pick({"user": {"displayName": self.account.title(),
                                                      "emailAddress": f"{self.account}@example.com"}}, _fields(self.args.get("fields", ""))))
        if path == "drives":
            return self.paged([d for d in self.drive.drives if d["account"] == self.account], "drives",
                              lambda d: {"id": d["id"], "name": d["name"]})
        if path == "changes/startPageToken":
            return self.h._send(200, {"startPageToken": f"{self.drive.token_epoch}:{len(self.drive.changes) + 1}"})
        if path == "changes":
            return self.changes_list()
        if len(parts) == 2 and parts[0] == "files":
            return self.files_get(parts[1])
        if len(parts) == 3 and parts[0] == "files" and parts[2] == "export":
            return self.files_export(parts[1])
        self.h._error(404, "notFound", f"no such endpoint {path}")

    def visible(self, f: DriveFile) -> bool:
        if f.account != self.account:
            return False
        return not f.driveId or self.all_drives

    def find(self, fid: str) -> DriveFile | None:
        fid = f"root-{self.account}" if fid == "root" else fid
        f = self.drive.files.get(fid)
        return f if f is not None and self.visible(f) else None

    def paged(self, rows: list, key: str, shape) -> None:
        start = int(self.args.get("pageToken") or 0)
        size = min(int(self.args.get("pageSize") or 100), self.drive.max_page)
        body = {key: [shape(r) for r in rows[start:start + size]]}
        if start + size < len(rows):
            body["nextPageToken"] = str(start + size)
        self.h._send(200, _pick(body, _fields(self.args.get("fields", ""))))

    def files_list(self) -> None:
        q = self.args.get("q", "")
        q = q.replace("'root' in parents", f"'root-{self.account}' in parents")
        try:
            ok = _matcher(q)
        except ValueError as exc:
            return self.h._error(400, "invalid", str(exc))
        drive_id = self.args.get("driveId", "")
        rows = []
        for f in self.drive.files.values():
            if f.account != self.account or f.id.startswith("root-") or f.id == f.driveId or not ok(f):
                continue
            if f.driveId and not (self.all_drives and self.include_all):
                continue
            if drive_id and f.driveId != drive_id:
                continue
            rows.append(f)
        rows.sort(key=lambda f: (f.mimeType != FOLDER, f.name))
        self.paged(rows, "files", DriveFile.meta)

    def files_get(self, fid: str) -> None:
        f = self.find(fid)
        if f is None:
            return self.h._error(404, "notFound", f"File not found: {fid}.")
        if self.args.get("alt") == "media":
            if f.mimeType.startswith("application/vnd.google-apps."):
                return self.h._error(403, "fileNotDownloadable", "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
            return self.h._send(200, f.content, content_type="application/octet-stream")
        self.h._send(200, _pick(f.meta(), _fields(self.args.get("fields", ""))))

    def files_export(self, fid: str) -> None:
        f = self.find(fid)
        if f is None:
            return self.h._error(404, "notFound", f"File not found: {fid}.")
        mime = self.args.get("mimeType", "")
        if f.export_too_large:
            return self.h._error(403, "exportSizeLimitExceeded", "This file is too large to be exported.")
        if mime not in f.exports:
            return self.h._error(400, "badRequest", f"The requested conversion is not supported: {mime}")
        self.h._send(200, f.exports[mime], content_type=mime)

    def changes_list(self) -> None:
        epoch, _, position = (self.args.get("pageToken") or "").partition(":")
        if not position.isdigit() or epoch != str(self.drive.token_epoch) or int(position) < 1:
            return self.h._error(410, "invalid", "The page token is no longer valid.")
        token = int(position)
        size = min(int(self.args.get("pageSize") or 100), self.drive.max_page)
        log = self.drive.changes
        window = log[token - 1: token - 1 + size]
        out = []
        for fid, account in window:
            if account != self.account:
                continue
            f = self.drive.files.get(fid)
            if f is not None and f.driveId and not (self.all_drives and self.include_all):
                continue
            if f is None:
                out.append({"kind": "drive#change", "changeType": "file", "fileId": fid, "removed": True})
            else:
                out.append({"kind": "drive#change", "changeType": "file", "fileId": fid, "removed": False,
                            "file": f.meta()})
        body = {"changes": out}
        next_token = token + len(window)
        if next_token <= len(log):
            body["nextPageToken"] = f"{self.drive.token_epoch}:{next_token}"
        else:
            body["newStartPageToken"] = f"{self.drive.token_epoch}:{len(log) + 1}"
        self.h._send(200, _pick(body, _fields(self.args.get("fields", ""))))
