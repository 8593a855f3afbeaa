"""Settings persisted as versioned rows, with environment overrides and hot reload.

Every call to ``current()`` asks the database for the highest version (one indexed
query); when another process saved a newer one, it is loaded. So a switch flipped in the
dashboard (strict mode) applies to the next message in every process, with no restart.

Environment overrides: ``RAGDESK_<SECTION>__<FIELD>=value`` (e.g.
``RAGDESK_STRICT__RAG_STRICT_MODE=true``, ``RAGDESK_LLM__BASE_URL=...``). They win over
saved values and are reported by ``overridden()`` so the UI can show them as locked.
"""

from __future__ import annotations

import copy
import json
import os
import threading
from typing import Any, Mapping

from pydantic import ValidationError
from sqlmodel import select

from core.db import models
from core.db.database import Database
from core.errors import InvalidSettings
from core.secrets.box import SecretBox
from core.settings.model import SECRET_FIELDS, Settings

ENV_PREFIX = "RAGDESK_"
SECRET_MASK = "********"


def format_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(x) for x in err.get("loc", ()))
        msg = err.get("msg", "invalid").removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


# The environment names of the product brief and of the reference implementation, so their users'
# deployments carry over. A RAGDESK_SECTION__FIELD variable for the same field wins.
ENV_ALIASES: dict[str, tuple[str, str]] = {
    "GOOGLE_DRIVE_CLIENT_ID": ("gdrive", "client_id"),
    "GOOGLE_DRIVE_CLIENT_SECRET": ("gdrive", "client_secret"),
    "GOOGLE_DRIVE_API_KEY": ("gdrive", "api_key"),
    "GOOGLE_REDIRECT_URI": ("gdrive", "redirect_uri"),
    "ENABLE_GOOGLE_DRIVE_INTEGRATION": ("gdrive", "enabled"),
    "ENABLE_WEB_SEARCH": ("web_search", "enable_web_search"),
    "ENABLE_RAG_WEB_SEARCH": ("web_search", "enable_web_search"),
    "WEB_SEARCH_ENGINE": ("web_search", "web_search_engine"),
    "RAG_WEB_SEARCH_ENGINE": ("web_search", "web_search_engine"),
    "WEB_SEARCH_RESULT_COUNT": ("web_search", "web_search_result_count"),
    "WEB_SEARCH_CONCURRENT_REQUESTS": ("web_search", "web_search_concurrent_requests"),
    "WEB_SEARCH_DOMAIN_FILTER_LIST": ("web_search", "web_search_domain_filter_list"),
    "WEB_SEARCH_TRUST_ENV": ("web_search", "web_search_trust_env"),
    "ENABLE_WEB_LOADER_SSL_VERIFICATION": ("web_search", "enable_web_loader_ssl_verification"),
    "BYPASS_WEB_SEARCH_WEB_LOADER": ("web_search", "bypass_web_search_web_loader"),
    "BYPASS_WEB_SEARCH_EMBEDDING_AND_RETRIEVAL": ("web_search", "bypass_web_search_embedding_and_retrieval"),
    "SEARXNG_QUERY_URL": ("web_search", "searxng_query_url"),
    "TAVILY_API_KEY": ("web_search", "tavily_api_key"),
    "BRAVE_SEARCH_API_KEY": ("web_search", "brave_search_api_key"),
    "GOOGLE_PSE_API_KEY": ("web_search", "google_pse_api_key"),
    "GOOGLE_PSE_ENGINE_ID": ("web_search", "google_pse_engine_id"),
    "SERPER_API_KEY": ("web_search", "serper_api_key"),
    "EXTERNAL_WEB_SEARCH_URL": ("web_search", "external_web_search_url"),
    "EXTERNAL_WEB_SEARCH_API_KEY": ("web_search", "external_web_search_api_key"),
}


def _env_value(raw: str) -> Any:
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def env_overrides(environ: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Nested {section: {field: raw value}} from RAGDESK_SECTION__FIELD variables (and the aliases)."""
    environ = os.environ if environ is None else environ
    sections = set(Settings.model_fields)
    out: dict[str, dict[str, Any]] = {}
    for key, (section, field) in ENV_ALIASES.items():
        raw = environ.get(key)
        if raw:
            value = _env_value(raw)
            if field.endswith("_list") and isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            out.setdefault(section, {})[field] = value
    for key, raw in environ.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        section, _, field = key[len(ENV_PREFIX):].lower().partition("__")
        if section not in sections:
            continue
        value = _env_value(raw)
        node = out.setdefault(section, {})
        *parents, leaf = field.split("__")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def _deep_merge(base: dict, patch: Mapping) -> dict:
    merged = dict(base)
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def validate(data: Mapping, *, stored: bool = False) -> Settings:
    """``stored``: data saved by an earlier release; a value a newer rule refuses is dropped with a
    warning instead of refusing to start (a save still refuses it, naming it)."""
    try:
        return Settings.model_validate(data, context={"stored": True} if stored else None)
    except ValidationError as exc:
        raise InvalidSettings(f"invalid settings: {format_validation_error(exc)}") from None


def masked(settings: Settings) -> dict:
    """Settings as a dict with every secret replaced by a mask (for pages, logs and the CLI)."""
    data = settings.model_dump()
    for section, field in SECRET_FIELDS:
        node = data
        for part in section.split("."):
            node = node[part]
        if node.get(field):
            node[field] = SECRET_MASK
    return data


def mask_secret_fields(data: dict) -> dict:
    """A copy of a nested (partial) settings dict with every secret present replaced by the mask."""
    out = copy.deepcopy(data)
    for node, field in _secret_nodes(out):
        node[field] = SECRET_MASK
    return out


def _secret_nodes(data: dict):
    """(node, field) for every secret field present in a nested settings dict."""
    for section, field in SECRET_FIELDS:
        node: Any = data
        for part in section.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and isinstance(node.get(field), str) and node[field]:
            yield node, field


def encrypt_secrets(data: dict, box: SecretBox) -> dict:
    """A copy of saved settings with every secret field encrypted (what goes into the row)."""
    out = copy.deepcopy(data)
    for node, field in _secret_nodes(out):
        node[field] = box.encrypt(node[field])
    return out


def decrypt_secrets(data: dict, box: SecretBox) -> dict:
    out = copy.deepcopy(data)
    for node, field in _secret_nodes(out):
        node[field] = box.decrypt(node[field])
    return out


def reencrypt_rows(db: Database, old: SecretBox, new: SecretBox) -> int:
    """Every saved settings version re-encrypted from ``old``'s keys to ``new``'s (rotation)."""
    count = 0
    with db.write() as s:
        for row in s.exec(select(models.SettingsVersion)):
            fresh = encrypt_secrets(decrypt_secrets(dict(row.data), old), new)
            if fresh != row.data:
                row.data = fresh
                s.add(row)
                count += 1
    return count


class SettingsStore:
    """``box``: encrypts secret fields in the stored rows and decrypts them on load (None: stored
    as given — only for tools that never read a secret)."""

    def __init__(self, db: Database, environ: Mapping[str, str] | None = None, box: SecretBox | None = None):
        self._db = db
        self._environ = environ
        self._box = box
        self._lock = threading.Lock()
        self._version = -1
        self._saved: dict = {}
        self._current: Settings | None = None

    def overridden(self) -> dict[str, dict[str, Any]]:
        return env_overrides(self._environ)

    def version(self) -> int:
        with self._db.read() as s:
            row = s.exec(select(models.SettingsVersion.version).order_by(models.SettingsVersion.version.desc()).limit(1)).first()
        return int(row) if row is not None else 0

    def current(self) -> Settings:
        version = self.version()
        with self._lock:
            if self._current is not None and version == self._version:
                return self._current
            with self._db.read() as s:
                row = s.get(models.SettingsVersion, version) if version else None
            saved = dict(row.data) if row else {}
            if self._box is not None:
                saved = decrypt_secrets(saved, self._box)
            overrides = self.overridden()
            if self._box is not None:
                for node, field in _secret_nodes(overrides):
                    self._box.remember(node[field])  # set by the environment: never shown in a log either
            self._current = validate(_deep_merge(saved, overrides), stored=True)
            self._saved, self._version = saved, version
            return self._current

    def saved(self) -> dict:
        self.current()
        return dict(self._saved)

    def save(self, patch: Mapping, saved_by: str = "") -> Settings:
        """Merge a (partial, nested) patch into the saved settings and store it as a new version.

        A secret sent back as the mask keeps its saved value (forms round-trip masked values).
        """
        patch = _drop_masked_secrets(patch)
        with self._db.write() as s:
            row = s.exec(select(models.SettingsVersion).order_by(models.SettingsVersion.version.desc()).limit(1)).first()
            saved = dict(row.data) if row else {}
            if self._box is not None:
                saved = decrypt_secrets(saved, self._box)
            # an earlier release's value that a newer rule refuses was never in force: drop it here
            saved = validate(saved, stored=True).model_dump(exclude_unset=True) if saved else {}
            merged = _deep_merge(saved, patch)
            validate(_deep_merge(merged, self.overridden()))  # what will be in force must be valid
            # keep only what the admin set: a later release's better defaults still apply
            clean = validate(merged).model_dump(exclude_unset=True)
            if self._box is not None:
                clean = encrypt_secrets(clean, self._box)
            s.add(models.SettingsVersion(version=(row.version if row else 0) + 1, data=clean, saved_by=saved_by))
        return self.current()


def _drop_masked_secrets(patch: Mapping) -> dict:
    out = _deep_merge({}, patch)
    for section, field in SECRET_FIELDS:
        node: Any = out
        for part in section.split("."):
            node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                break
        if isinstance(node, dict) and node.get(field) == SECRET_MASK:
            del node[field]
    return out
