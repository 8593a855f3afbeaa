"""The ``webdav`` source kind: a folder on a WebDAV server (Nextcloud, ownCloud, any server), synced.

Config: the folder's URL and the user name; the password is a credential (``SecretStr`` at the
door, stored encrypted with the engine's SecretBox in its own table, never in the config, so no
listing or log carries it). The URL is checked by the URL guard before the source is created and
every connection goes through it again: a private address only when an admin opened that host
(``parsing.url_allow_hosts``), link-local and metadata addresses never. Light to import.
"""

from __future__ import annotations

from urllib.parse import quote, unquote, urlsplit, urlunsplit

from core.errors import InvalidInput
from core.sources.plugin import SourceContext, SourceKind, register_source_kind


def _check(config: dict) -> dict:
    url = str(config.get("url", "")).strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(f"a WebDAV source needs the folder's http(s) URL (got {url or 'nothing'!r})")
    if parts.username or parts.password:
        raise InvalidInput("put the user name and password in their own fields, not in the URL (it is shown in listings)")
    username = str(config.get("username", "")).strip()
    if not username:
        raise InvalidInput("a WebDAV source needs a user name")
    path = quote(unquote(parts.path or "/"), safe="/@:+,;=!$&'()*~")
    folder = urlunsplit((parts.scheme, parts.netloc.lower(), path.rstrip("/") + "/", "", ""))
    return {"url": folder, "username": username}


def _admit(config: dict, settings) -> dict:
    from core.parsers.url_guard import AllowList, check_url

    check_url(config["url"], AllowList.of(settings.parsing))  # BlockedAddress before any row or connection
    return config


def _open(ctx: SourceContext):
    from core.sources.webdav.client import WebDavSource

    password = ctx.secrets.get("password", "")
    return WebDavSource(ctx.parts, ctx.row.id, ctx.row.config["url"], ctx.row.config["username"], password)


def _title(config: dict) -> str:
    parts = urlsplit(config["url"])
    return f"WebDAV: {config['username']}@{parts.hostname}{unquote(parts.path)}"


register_source_kind(SourceKind("webdav", open=_open, check_config=_check, admit=_admit, secrets=("password",),
                                title=_title))
