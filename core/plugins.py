"""Plugin registries: one per kind of thing ragdesk can be extended with.

Document formats, web-search engines, remote sources, LLM providers and embedding providers each
have one ``Registry``; so do the two things a plugin adds around them: a service (its operations —
hence CLI, hand-off and HTTP —, and its job kinds, core/services/plugin.py) and a table set (its
own tables and Alembic revisions, core/db/plugin_tables.py). A plugin's error classes need no
registry of their own: defining a ``CoreError`` subclass registers it (core/errors.py). See
docs/plugins.md. A plugin is one module that calls ``register`` once at import; the places
that used to switch on a name (``if provider == ...``) ask the registry instead, and capability
questions are attributes of the plugin, not ``isinstance`` checks.

Built-ins are listed here by module name only (imported the first time a registry is asked, so
nothing heavy loads at start); outside plugins are modules named in ``RAGDESK_PLUGINS``
(comma-separated) or published under the ``ragdesk.plugins`` entry-point group. Both are imported
once, before any registry answers. This module imports nothing of ours at its top: settings, the
parsers and the engine all ask it, so it must not ask them.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from importlib import metadata
from typing import Generic, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")
PLUGINS_ENV = "RAGDESK_PLUGINS"
ENTRY_POINT_GROUP = "ragdesk.plugins"

_load_lock = threading.RLock()
_loaded_outside = False


class UnknownPlugin(LookupError):
    """A name no plugin of that kind registered (settings validation turns it into InvalidSettings)."""


class Registry(Generic[T]):
    """Named plugins of one kind. ``builtins``: modules that register ragdesk's own."""

    def __init__(self, kind: str, builtins: tuple[str, ...] = ()):
        self.kind = kind
        self._builtins = builtins
        self._items: dict[str, T] = {}
        self._ready = False

    def register(self, name: str, plugin: T, *, replace: bool = False) -> T:
        """Add ``plugin`` under ``name``; a second plugin with the same name is a bug unless ``replace``."""
        if not name or name != name.strip() or "." in name:
            raise ValueError(f"a {self.kind} name must be a non-empty word without dots (got {name!r})")
        if name in self._items and not replace and self._items[name] is not plugin:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._items[name] = plugin
        return plugin

    def unregister(self, name: str) -> None:
        """Remove a plugin (tests that register one for a while)."""
        self._items.pop(name, None)

    def get(self, name: str) -> T:
        self._ensure()
        try:
            return self._items[name]
        except KeyError:
            raise UnknownPlugin(f"unknown {self.kind} {name!r} (choose one of {', '.join(self._items)})") from None

    def find(self, name: str) -> T | None:
        self._ensure()
        return self._items.get(name)

    def names(self) -> list[str]:
        self._ensure()
        return list(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        self._ensure()
        return iter(list(self._items.items()))

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return name in self._items

    def _ensure(self) -> None:
        if self._ready:
            return
        with _load_lock:
            if self._ready:
                return
            self._ready = True  # set first: a built-in module that asks its own registry does not recurse
            for module in self._builtins:
                importlib.import_module(module)
        load_plugins()


FORMATS: Registry = Registry("document format", ("core.parsers.formats",))
SEARCH_ENGINES: Registry = Registry("web search engine", tuple(
    f"core.websearch.{m}" for m in ("searxng", "tavily", "brave", "google_pse", "serper", "external", "duckduckgo")))
SOURCES: Registry = Registry("remote source kind", ("core.sources.web_kind", "core.gdrive.source_kind",
                                                     "core.sources.folder", "core.sources.webdav",
                                                     "core.sources.dingtalk"))
CHAT_PROVIDERS: Registry = Registry("LLM provider", tuple(
    f"core.llm.{m}" for m in ("extractive", "openai_provider", "ollama_provider")))
EMBEDDING_PROVIDERS: Registry = Registry("embedding provider", tuple(
    f"core.embeddings.{m}" for m in ("factory", "openai_api", "ollama_api")))
# What a plugin adds around its thing. Core's own services are composed by the engine and core's own
# tables are core's revision chain; these hold what plugin packages add (Google Drive's service
# is a built-in one: it registers exactly as an outside package's would).
PLUGIN_SERVICES: Registry = Registry("plugin service", ("core.gdrive.drive_service",))
TABLE_SETS: Registry = Registry("plugin table set")
DASHBOARD_PANELS: Registry = Registry("dashboard panel")  # core/panels.py


def plugin_modules(environ: Mapping[str, str] | None = None) -> list[str]:
    raw = (os.environ if environ is None else environ).get(PLUGINS_ENV, "")
    return [m.strip() for m in raw.split(",") if m.strip()]


def load_plugins(environ: Mapping[str, str] | None = None) -> list[str]:
    """Import the outside plugin modules once (RAGDESK_PLUGINS, then entry points); returns their names.

    A module that cannot be imported is an error naming it: a deployment that lists a plugin
    relies on it, and silently running without it would answer from the wrong engine."""
    global _loaded_outside
    with _load_lock:
        if _loaded_outside and environ is None:
            return []
        _loaded_outside = True
        names = plugin_modules(environ)
        for name in names:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                raise ImportError(f"{PLUGINS_ENV} names {name!r}, which could not be imported: {exc}") from exc
        for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
            log.info("loading ragdesk plugin %s from %s", entry.name, entry.value)
            entry.load()
            names.append(entry.value)
        return names
