"""The ``dingtalk`` source kind: a DingTalk knowledge base (钉钉知识库), or one folder of it, synced.

Config: the app's AppKey (client id), the operator's unionId (DingTalk's ``operatorId``: whose
read access the app uses), the knowledge base's id and optionally a folder node in it. The
AppSecret is a credential (``SecretStr`` at the door, stored encrypted with the engine's SecretBox
in its own table, never in the config, so no listing or log carries it). The API's base URL is an
admin's setting (``sources.kinds.dingtalk.base_url``), checked by the URL guard when a source is
added and on every connection. Light to import: the client lives in ``api.py``, the walk in
``source.py``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from core.errors import InvalidInput
from core.settings.fields import PluginSettings
from core.sources.plugin import SourceContext, SourceKind, register_source_kind

DEFAULT_BASE_URL = "https://api.dingtalk.com"


class DingTalkSourceSettings(PluginSettings):
    base_url: str = Field(DEFAULT_BASE_URL, description=(
        "DingTalk's open API address (a stand-in's for tests); checked by the URL guard."))
    export_format: Literal["docx", "markdown"] = Field("docx", description=(
        "What each DingTalk document is exported to before it is parsed: docx, the format DingTalk's "
        "export API documents; markdown where a tenant's API accepts it (not in DingTalk's docs)."))
    page_size: int = Field(30, ge=1, le=50, description=(
        "Nodes asked for per page (maxResults; 30 is the value DingTalk's docs give)."))
    export_timeout_seconds: float = Field(120.0, gt=0, description="How long one document's export job may take.")


_ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def _field(config: dict, name: str, label: str, *, required: bool = True) -> str:
    value = str(config.get(name, "") or "").strip()
    if required and not value:
        raise InvalidInput(f"a DingTalk source needs {label}")
    if value and not set(value) <= _ID_CHARS:
        raise InvalidInput(f"{label} {value!r} is not a DingTalk id (letters, digits, '-', '_', '.')")
    return value


def _check(config: dict) -> dict:
    out = {"app_key": _field(config, "app_key", "the app's AppKey (client id)"),
           "operator_id": _field(config, "operator_id", "the operator's unionId (operatorId)"),
           "workspace_id": _field(config, "workspace_id", "the knowledge base's id (workspaceId)")}
    folder = _field(config, "folder_id", "the folder's node id", required=False)
    if folder:
        out["folder_id"] = folder
    return out


def own_settings(settings) -> DingTalkSourceSettings:
    return settings.sources.kinds.get("dingtalk") or DingTalkSourceSettings()


def _admit(config: dict, settings) -> dict:
    from core.parsers.url_guard import AllowList, check_url

    check_url(own_settings(settings).base_url, AllowList.of(settings.parsing))  # before any row or connection
    return config


def api_for(settings, app_key: str, app_secret: str, operator_id: str):
    """A DingTalk API client through the guarded transport, with the current settings."""
    import httpx

    from core.parsers.url_guard import AllowList
    from core.parsers.url_transport import GuardedTransport
    from core.sources.dingtalk.api import DingTalkApi

    own, parsing = own_settings(settings), settings.parsing
    client = httpx.Client(transport=GuardedTransport(AllowList.of(parsing)), trust_env=False,
                          follow_redirects=False, timeout=httpx.Timeout(parsing.url_timeout_seconds))
    return DingTalkApi(client, own.base_url, app_key, app_secret, operator_id, page_size=own.page_size,
                       max_bytes=parsing.url_max_mb * 1024 * 1024)


def _open(ctx: SourceContext):
    from core.sources.dingtalk.source import DingTalkSource

    settings, config = ctx.parts.snapshot().settings, ctx.row.config
    own = own_settings(settings)
    api = api_for(settings, config["app_key"], ctx.secrets.get("app_secret", ""), config["operator_id"])
    return DingTalkSource(ctx.parts, ctx.row.id, api, config["workspace_id"], config.get("folder_id", ""),
                          own.export_format, own.export_timeout_seconds)


def _title(config: dict) -> str:
    folder = f" / {config['folder_id']}" if config.get("folder_id") else ""
    return f"DingTalk: knowledge base {config['workspace_id']}{folder}"


register_source_kind(SourceKind("dingtalk", open=_open, settings=DingTalkSourceSettings, check_config=_check,
                                admit=_admit, secrets=("app_secret",), title=_title))
