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
import logging
import os
import threading
from collections.abc import Mapping
from typing import Any, get_origin

from pydantic import SecretStr, ValidationError
from sqlmodel import select

from core.db import models
from core.db.database import Database
from core.errors import InvalidSettings
from core.plugins import load_plugins
from core.secrets.box import SecretBox
from core.settings.fields import env_aliases, plain_dump, secret_paths
from core.settings.model import Settings, legacy_keys, upgrade_legacy

ENV_PREFIX = "RAGDESK_"
SECRET_MASK = "********"


def format_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(x) for x in err.get("loc", ()))
        msg = err.get("msg", "invalid").removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


def _env_value(raw: str) -> Any:
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _set_path(out: dict, path: tuple[str, ...], value: Any) -> None:
    node = out
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def env_overrides(environ: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Nested {section: {field: raw value}} from RAGDESK_SECTION__FIELD variables and the aliases
    the fields declare (the brief's names, e.g. TAVILY_API_KEY; a RAGDESK_ variable wins)."""
    environ = os.environ if environ is None else environ
    sections = set(Settings.model_fields)
    out: dict[str, dict[str, Any]] = {}
    for key, leaf in env_aliases(Settings).items():
        raw = environ.get(key)
        if raw:
            value = _env_value(raw)
            if get_origin(leaf.info.annotation) is list and isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            _set_path(out, leaf.path, value)
    for key, raw in environ.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        section, _, field = key[len(ENV_PREFIX):].lower().partition("__")
        if section not in sections:
            continue
        _set_path(out, (section, *field.split("__")), _env_value(raw))
    return upgrade_legacy(out)  # RAGDESK_WEB_SEARCH__TAVILY_API_KEY (today's name) still works


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
    """Settings as a dict with every secret (a SecretStr field) replaced by a mask (pages, logs, CLI)."""
    return _masked(settings.model_dump())


def _masked(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _masked(v) for k, v in data.items()}
    if isinstance(data, SecretStr):
        return SECRET_MASK if data.get_secret_value() else ""
    return data


def _secret_paths() -> list[tuple[str, ...]]:
    """Where secrets sit in a settings dict: every SecretStr field of the model and of each
    registered plugin's sub-model (walked each time: a plugin may register after start), and
    the flat keys earlier releases kept some of them under."""
    paths = secret_paths(Settings)
    moved = {new: old for old, new in legacy_keys()}
    return paths + [moved[p] for p in paths if p in moved]


def mask_secret_fields(data: dict) -> dict:
    """A copy of a nested (partial) settings dict with every secret present replaced by the mask."""
    out = copy.deepcopy(data)
    for node, field in _secret_nodes(out):
        node[field] = SECRET_MASK
    return out


def _secret_nodes(data: dict):
    """(node, field) for every secret field present in a nested settings dict."""
    for path in _secret_paths():
        node: Any = data
        for part in path[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and isinstance(node.get(path[-1]), str) and node[path[-1]]:
            yield node, path[-1]


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


def _pruned(data: dict) -> dict:
    """Without empty sections (a plugin sub-model nobody set): the row keeps only what was set."""
    out = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = _pruned(value)
            if not value:
                continue
        out[key] = value
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


def encrypt_plain_rows(db: Database, box: SecretBox) -> int:
    """Every saved settings version whose secrets a release before encryption stored in plain text
    gets them encrypted — all versions, not only the one in force (an older row holds the key
    too). Run at every start and by ``db upgrade``; a database with none is only read. The number
    of rows changed."""

    def encrypted(data: dict) -> dict:
        out = copy.deepcopy(data)
        for node, field in _secret_nodes(out):
            node[field] = box.encrypt(node[field])  # an encrypted value comes back as it was
        return out

    with db.read() as s:
        if all(encrypted(dict(r.data)) == r.data for r in s.exec(select(models.SettingsVersion))):
            return 0
    count = 0
    with db.write() as s:
        if db.is_sqlite:  # the plain bytes are overwritten, not left in the file's free pages
            s.connection().exec_driver_sql("PRAGMA secure_delete = ON")
        for row in s.exec(select(models.SettingsVersion)):
            fresh = encrypted(dict(row.data))
            if fresh != row.data:
                row.data = fresh
                s.add(row)
                count += 1
    logging.getLogger(__name__).info("encrypted the secrets of %d settings version(s) an earlier release "
                                     "saved in plain text", count)
    return count


class SettingsStore:
    """``box``: encrypts secret fields in the stored rows and decrypts them on load (None: stored
    as given — only for tools that never read a secret)."""

    def __init__(self, db: Database, environ: Mapping[str, str] | None = None, box: SecretBox | None = None):
        load_plugins()  # plugin settings sub-models must be known before a row is read
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
            saved = upgrade_legacy(dict(row.data)) if row else {}
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
        patch = _drop_masked_secrets(upgrade_legacy(dict(patch)))
        with self._db.write() as s:
            row = s.exec(select(models.SettingsVersion).order_by(models.SettingsVersion.version.desc()).limit(1)).first()
            saved = upgrade_legacy(dict(row.data)) if row else {}
            if self._box is not None:
                saved = decrypt_secrets(saved, self._box)
            # an earlier release's value that a newer rule refuses was never in force: drop it here
            saved = plain_dump(validate(saved, stored=True), exclude_unset=True) if saved else {}
            merged = _deep_merge(saved, patch)
            validate(_deep_merge(merged, self.overridden()))  # what will be in force must be valid
            # keep only what the admin set: a later release's better defaults still apply
            clean = _pruned(plain_dump(validate(merged), exclude_unset=True))
            if self._box is not None:
                clean = encrypt_secrets(clean, self._box)
            s.add(models.SettingsVersion(version=(row.version if row else 0) + 1, data=clean, saved_by=saved_by))
        return self.current()


def _drop_masked_secrets(patch: Mapping) -> dict:
    out = _deep_merge({}, patch)
    for node, field in list(_secret_nodes(out)):
        if node[field] == SECRET_MASK:
            del node[field]
    return out
