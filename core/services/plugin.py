"""A plugin's service: its operations and job kinds, declared as core's own are.

A plugin module defines a class whose methods carry ``@operation`` (core/services/declare.py: access
rule, hand-off, HTTP routes, a ``Cli`` subcommand) and ``@job_kind``, and registers it once:

    register_service("bookmarks", BookmarkService)

The engine builds it with its ``Runtime`` (the database, the store, the settings: what core's
services share) and puts it at ``engine.services.<name>``. A service that works with others (a
source that imports into knowledge bases, attaches to chats) names them as keyword parameters of
its constructor, by their ``engine.services`` name, typed for the type checker:

    def __init__(self, rt: Runtime, *, kbs: KnowledgeBaseService, chats: ChatService): ...

and the engine hands it those services (core's, or a plugin service registered before it). Its
operations join the operations table (core/operations.py) and so reach the Engine's facade, the
hand-off, the HTTP API and, when they declare ``cli``, the CLI (core/cli/derived.py) — exactly as
built-in operations do.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Protocol

from core.plugins import PLUGIN_SERVICES
from core.services.declare import Operation, operations_of


class PluginServiceClass(Protocol):
    def __call__(self, runtime, /) -> object: ...


def register_service(name: str, service_cls: PluginServiceClass) -> PluginServiceClass:
    """Register ``service_cls`` as ``engine.services.<name>`` (built with the engine's Runtime)."""
    if not callable(service_cls):
        raise TypeError(f"plugin service {name!r} must be a class taking the engine's Runtime")
    return PLUGIN_SERVICES.register(name, service_cls)


def wanted_services(service_cls: type) -> dict[str, bool]:
    """The engine services ``service_cls``'s constructor names after the Runtime: name -> required."""
    params = list(inspect.signature(service_cls).parameters.values())[1:]
    return {p.name: p.default is inspect.Parameter.empty for p in params
            if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)}


def build_plugin_services(runtime, engine_services: Mapping[str, object],
                          classes: Mapping[str, type] | None = None) -> dict[str, object]:
    """Each plugin service (``classes``, by default every one registered) built with ``runtime`` and
    the services its constructor names (from ``engine_services``, core's, or a plugin service built
    before it, in registration order)."""
    built: dict[str, object] = {}
    for name, service_cls in (plugin_services() if classes is None else classes).items():
        have = {**engine_services, **built}
        missing = [want for want, required in wanted_services(service_cls).items() if required and want not in have]
        if missing:
            raise TypeError(f"plugin service {name!r} asks for engine service(s) {', '.join(missing)}, which do "
                            f"not exist (or are registered after it); there are: {', '.join(have)}")
        kwargs = {want: have[want] for want in wanted_services(service_cls) if want in have}
        built[name] = service_cls(runtime, **kwargs)
    return built


def plugin_services() -> dict[str, type]:
    """Every registered plugin service class by its ``engine.services`` name (outside plugins loaded first)."""
    return dict(PLUGIN_SERVICES.items())


def plugin_operations() -> list[Operation]:
    """The operations plugins' services declare — read without importing core's services (the CLI
    builds its parser from them: core.operations would add ~0.8 s to every command's start)."""
    return [op for name, cls in plugin_services().items() for op in operations_of(name, cls)]
