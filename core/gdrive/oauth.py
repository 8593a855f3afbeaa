"""OAuth for Drive: authorization code + PKCE + state (google-auth-oauthlib), read-only scope,
per-user tokens encrypted at rest, refresh by google-auth, revoke on disconnect. Every request to
the token and revoke endpoints goes through the SSRF guard (``core/gdrive/transport.py``); the
consent URL is only handed to the user's browser, so it is checked for its scheme alone.

The consent request (state + PKCE verifier) is kept in the database, not in a browser session:
Google's redirect opens a new page session, and the code must be exchanged by the user who
asked for it.
"""

from __future__ import annotations

import ipaddress
import logging
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

import requests
from google.auth.exceptions import RefreshError, TransportError
from google.auth.transport.requests import Request
from google.oauth2.credentials import Credentials
from google_auth_oauthlib.flow import Flow
from oauthlib.oauth2 import WebApplicationClient
from oauthlib.oauth2.rfc6749.errors import OAuth2Error
from sqlmodel import delete

from core.db.database import Database
from core.db.models import utcnow
from core.errors import CoreError, InvalidInput, InvalidSettings
from core.gdrive.errors import DriveError, DriveSetupIncomplete, NotConnected, ReconnectNeeded
from core.gdrive.models import DriveAuthRequest, DriveConnection
from core.gdrive.transport import guarded_requests
from core.parsers.url_guard import AllowList
from core.secrets.box import SecretBox
from core.settings.fields import reveal
from core.settings.model import GoogleDriveSettings

log = logging.getLogger(__name__)

SCOPE = "https://www.googleapis.com/auth/drive.readonly"
AUTH_REQUEST_MINUTES = 15


def missing_settings(cfg: GoogleDriveSettings) -> list[str]:
    """The settings a connection still needs (field names of the gdrive section)."""
    need = [] if cfg.enabled else ["enabled"]
    need += [name for name in ("client_id", "client_secret", "redirect_uri") if not getattr(cfg, name)]
    return need


def check_endpoint(url: str, what: str) -> None:
    """Google endpoints are https; plain http only to this machine (a local proxy or test server).
    Which addresses may be reached is the SSRF guard's decision, when a request connects."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and _loopback(parts.hostname or ""):
        return
    raise InvalidSettings(f"the Google Drive {what} must be an https URL (got '{url}')")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_setup(cfg: GoogleDriveSettings) -> None:
    missing = missing_settings(cfg)
    if missing:
        raise DriveSetupIncomplete("Google Drive is not set up yet; missing in Documents Settings → Google Drive: "
                                   + ", ".join(missing))
    for field, what in (("oauth_auth_url", "consent URL"), ("oauth_token_url", "token URL"),
                        ("revoke_url", "revoke URL"), ("api_base_url", "API URL")):
        check_endpoint(getattr(cfg, field), what)


def _as_https(url: str) -> str:
    """oauthlib refuses a plain-http consent URL unless a process-wide environment variable says
    otherwise; the URL is built from its https form and given its own scheme back instead (plain
    http is allowed for loopback alone, see ``check_endpoint``): no other engine or thread of this
    process ever sees a relaxed check."""
    return "https" + url[len("http"):] if urlsplit(url).scheme == "http" else url


def _scheme_of(template: str, url: str) -> str:
    return "http" + url[len("https"):] if urlsplit(template).scheme == "http" and url.startswith("https:") else url


def _flow(cfg: GoogleDriveSettings, **kw) -> Flow:
    client = {"web": {"client_id": cfg.client_id, "client_secret": reveal(cfg.client_secret),
                      "auth_uri": _as_https(cfg.oauth_auth_url), "token_uri": cfg.oauth_token_url,
                      "redirect_uris": [cfg.redirect_uri]}}
    return Flow.from_client_config(client, scopes=[SCOPE], redirect_uri=cfg.redirect_uri, **kw)


def authorization_url(db: Database, box: SecretBox, cfg: GoogleDriveSettings, user_id: str) -> str:
    """The consent-screen URL for this user (a new state and PKCE verifier each time)."""
    require_setup(cfg)
    flow = _flow(cfg, autogenerate_code_verifier=True)
    url, state = flow.authorization_url(access_type="offline", prompt="consent")
    url = _scheme_of(cfg.oauth_auth_url, url)
    cutoff = utcnow() - timedelta(minutes=AUTH_REQUEST_MINUTES)
    with db.write() as s:
        s.execute(delete(DriveAuthRequest).where(DriveAuthRequest.created_at < cutoff))
        s.add(DriveAuthRequest(state=state, user_id=user_id, code_verifier=box.encrypt(flow.code_verifier)))
    return url


def finish_authorization(db: Database, box: SecretBox, cfg: GoogleDriveSettings, user_id: str | None,
                         code: str, state: str, *, allow: AllowList) -> DriveConnection:
    """Exchange the code Google sent back; the state must be unused, fresh, and one this user was
    given. ``user_id`` None (the redirect opened a new, signed-out browser session): the
    connection goes to the user the state was issued to — a random, single-use value bound to
    that user, so a foreign code can only ever connect its own requester."""
    require_setup(cfg)
    with db.write() as s:
        pending = s.get(DriveAuthRequest, state or "")
        if pending is not None:
            s.delete(pending)  # single use, whatever happens next
    fresh = pending is not None and _aware(pending.created_at) > utcnow() - timedelta(minutes=AUTH_REQUEST_MINUTES)
    if pending is None or (user_id is not None and pending.user_id != user_id) or not fresh:
        raise InvalidInput("this Google sign-in answer does not match a request of yours (expired or already used): "
                           "press Connect Google Drive again")
    if not code:
        raise InvalidInput("Google sent no authorization code back (consent refused?)")
    try:
        creds = _exchange_code(cfg, code, box.decrypt(pending.code_verifier), allow)
    except OAuth2Error as exc:
        raise DriveError(f"Google refused the sign-in ({exc.error}): press Connect Google Drive again") from None
    except requests.RequestException as exc:
        raise DriveError(f"cannot reach Google's token endpoint ({type(exc).__name__})") from None
    if not creds.refresh_token:
        raise DriveError("Google returned no refresh token: remove ragdesk's access in your Google account and connect again")
    return save_connection(db, box, pending.user_id, creds)


def _exchange_code(cfg: GoogleDriveSettings, code: str, code_verifier: str, allow: AllowList) -> Credentials:
    """The authorization-code exchange (RFC 6749 4.1.3 with PKCE), posted through the SSRF guard;
    oauthlib builds the body and reads the answer, without its transport check (see ``_as_https``)."""
    client = WebApplicationClient(cfg.client_id)
    body = client.prepare_request_body(code=code, redirect_uri=cfg.redirect_uri, code_verifier=code_verifier,
                                       include_client_id=True, client_secret=reveal(cfg.client_secret))
    response = guarded_requests(allow).post(cfg.oauth_token_url, data=body, timeout=30, headers={
        "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"})
    token = client.parse_request_body_response(response.text, scope=[SCOPE])
    expiry = (datetime.fromtimestamp(token["expires_at"], timezone.utc).replace(tzinfo=None)
              if token.get("expires_at") else None)
    return credentials_from(cfg, token.get("refresh_token") or "", token.get("access_token") or "", expiry)


def connect_refresh_token(db: Database, box: SecretBox, cfg: GoogleDriveSettings, user_id: str,
                          refresh_token: str, *, allow: AllowList) -> DriveConnection:
    """Connect with a refresh token obtained elsewhere (servers without a browser); checked by refreshing."""
    require_setup(cfg)
    if not refresh_token.strip():
        raise InvalidInput("the refresh token is empty")
    creds = credentials_from(cfg, refresh_token.strip(), "", None)
    try:
        creds.refresh(Request(session=guarded_requests(allow)))
    except RefreshError:
        raise DriveError("Google refused this refresh token (revoked, expired or for another OAuth client)") from None
    except TransportError as exc:
        raise DriveError(f"cannot reach Google's token endpoint ({type(exc).__name__})") from None
    return save_connection(db, box, user_id, creds)


def credentials_from(cfg: GoogleDriveSettings, refresh_token: str, access_token: str,
                     expiry: datetime | None) -> Credentials:
    creds = Credentials(token=access_token or None, refresh_token=refresh_token, token_uri=cfg.oauth_token_url,
                        client_id=cfg.client_id, client_secret=reveal(cfg.client_secret), scopes=[SCOPE])
    if expiry is not None:
        creds.expiry = _aware(expiry).replace(tzinfo=None)  # google-auth compares naive UTC times
    return creds


def save_connection(db: Database, box: SecretBox, user_id: str, creds: Credentials,
                    email: str = "", display_name: str = "") -> DriveConnection:
    with db.write() as s:
        conn = s.get(DriveConnection, user_id) or DriveConnection(user_id=user_id)
        conn.refresh_token = box.encrypt(creds.refresh_token or box.decrypt(conn.refresh_token))
        conn.access_token = box.encrypt(creds.token or "")
        conn.expiry = creds.expiry.replace(tzinfo=timezone.utc) if creds.expiry else None
        conn.state, conn.last_error, conn.updated_at = "connected", "", utcnow()
        if email:
            conn.email, conn.display_name = email, display_name
        s.add(conn)
    return conn


def load_credentials(db: Database, box: SecretBox, cfg: GoogleDriveSettings, user_id: str) -> Credentials:
    """The user's own credentials (nobody else's: the caller passes the actor's id)."""
    require_setup(cfg)
    with db.read() as s:
        conn = s.get(DriveConnection, user_id)
    if conn is None:
        raise NotConnected("Google Drive is not connected for this account: connect it first")
    if conn.state == "reconnect":
        raise ReconnectNeeded("Google no longer accepts this Drive connection: reconnect Google Drive")
    return credentials_from(cfg, box.decrypt(conn.refresh_token), box.decrypt(conn.access_token), conn.expiry)


def mark_reconnect(db: Database, user_id: str, reason: str) -> None:
    with db.write() as s:
        conn = s.get(DriveConnection, user_id)
        if conn is not None:
            conn.state, conn.last_error, conn.updated_at = "reconnect", reason, utcnow()
            s.add(conn)


def get_connection(db: Database, user_id: str) -> DriveConnection | None:
    with db.read() as s:
        return s.get(DriveConnection, user_id)


def disconnect(db: Database, box: SecretBox, cfg: GoogleDriveSettings, user_id: str, *, allow: AllowList) -> bool:
    """Revoke at Google, then delete the tokens (deleted even when Google cannot be reached).
    True when Google confirmed the revocation."""
    conn = get_connection(db, user_id)
    if conn is None:
        raise NotConnected("Google Drive is not connected for this account")
    revoked = False
    token = box.decrypt(conn.refresh_token) or box.decrypt(conn.access_token)
    try:
        check_endpoint(cfg.revoke_url, "revoke URL")
        with guarded_requests(allow, timeout=15) as session:
            answer = session.post(cfg.revoke_url, data={"token": token}, timeout=15,
                                  headers={"Content-Type": "application/x-www-form-urlencoded"})
        revoked = answer.status_code == 200
        if not revoked:
            log.warning("Google answered %s to the token revocation", answer.status_code)
    except (requests.RequestException, CoreError) as exc:  # refused by the guard or the settings, or unreachable
        log.warning("could not revoke the Drive token at Google: %s", exc.message if isinstance(exc, CoreError)
                    else type(exc).__name__)
    with db.write() as s:
        row = s.get(DriveConnection, user_id)
        if row is not None:
            s.delete(row)
    return revoked


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value
