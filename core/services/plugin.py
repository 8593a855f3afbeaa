"""A plugin's service: its operations and job kinds, declared as core's own are.

A plugin module defines a class whose methods carry ``@operation`` (core/services/declare.py: access
rule, hand-off, HTTP routes, a ``Cli`` subcommand) and ``@job_kind``, and registers it once:

    register_service("bookmarks", BookmarkService)

The engine builds it with its ``Runtime`` (the database, the store, the settings: what core's
services share) and puts it at ``engine.services.<name>``; its operations join the operations table
(core/operations.py) and so reach the Engine's facade, the hand-off, the HTTP API and, when they
declare ``cli``, the CLI (core/cli/derived.py) — exactly as built-in operations do.
"""

from __future__ import annotations

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


def plugin_services() -> dict[str, type]:
    """Every registered plugin service class by its ``engine.services`` name (outside plugins loaded first)."""
    return dict(PLUGIN_SERVICES.items())


def plugin_operations() -> list[Operation]:
    """The operations plugins' services declare — read without importing core's services (the CLI
    builds its parser from them: core.operations would add ~0.8 s to every command's start)."""
    return [op for name, cls in plugin_services().items() for op in operations_of(name, cls)]
