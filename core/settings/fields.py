"""What the settings model's types say about each field, read by walking the model.

A secret is a field typed ``SecretStr``: masking, encryption at rest and the "never log it" list
come from that type, not from a hand-kept list. Environment aliases (the brief's
``TAVILY_API_KEY``-style names) sit on the field they set (``Field(json_schema_extra=env(...))``).
Plugins' settings sub-models live in ``plugin_map`` fields (a name -> sub-model mapping checked
against a registry), and the walk goes into every registered plugin's sub-model.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
)
from pydantic.fields import FieldInfo

from core.plugins import Registry

log = logging.getLogger(__name__)
Path = tuple[str, ...]


class PluginSettings(BaseModel):
    """Base of a plugin's settings sub-model: unknown keys refused, assignments checked."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def env(*names: str) -> dict:
    """``json_schema_extra`` naming the environment variables that also set this field."""
    return {"env": list(names)}


def secret(description: str = "", *names: str) -> Any:
    """A secret field (``SecretStr``, empty by default), optionally set by environment variables too."""
    return Field(SecretStr(""), description=description or None, json_schema_extra=env(*names) if names else None)


def reveal(value: Any) -> Any:
    """A SecretStr's plain value (anything else as it is): what a provider is built from, never shown."""
    return value.get_secret_value() if isinstance(value, SecretStr) else value


@dataclass(frozen=True)
class PluginMap:
    """Marks a ``name -> settings sub-model`` field; the registry says which names and models exist."""

    registry: Registry


def _settings_model(plugin: Any) -> type[BaseModel] | None:
    model = getattr(plugin, "settings", None)
    return model if inspect.isclass(model) and issubclass(model, BaseModel) else None


def plugin_map(registry: Registry, description: str = "") -> Any:
    """A field holding each registered plugin's settings (defaults for those not set)."""

    def check(value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, raw in value.items():
            plugin = registry.find(name)
            model = _settings_model(plugin) if plugin is not None else None
            if model is None:
                if (info.context or {}).get("stored"):
                    # saved while a plugin that is no longer installed was: dropped, not fatal
                    log.warning("ignoring saved settings of %s %r (not installed)", registry.kind, name)
                    continue
                raise ValueError(f"no {registry.kind} named {name!r} with settings is installed "
                                 f"(known: {', '.join(n for n, p in registry.items() if _settings_model(p)) or 'none'})")
            out[name] = raw if isinstance(raw, model) else model.model_validate(raw or {}, context=info.context)
        for name, plugin in registry.items():
            model = _settings_model(plugin)
            if model is not None and name not in out:
                out[name] = model()
        return out

    def defaults() -> dict[str, Any]:
        return check({}, _NoContext())

    return Annotated[dict[str, Any], PluginMap(registry), AfterValidator(check),
                     Field(default_factory=defaults, description=description or None)]


class _NoContext:
    context = None


def plugin_settings(registry: Registry, name: str) -> type[BaseModel] | None:
    plugin = registry.find(name)
    return _settings_model(plugin) if plugin is not None else None


@dataclass(frozen=True)
class Leaf:
    path: Path
    info: FieldInfo

    @property
    def is_secret(self) -> bool:
        return self.info.annotation is SecretStr

    @property
    def env_names(self) -> list[str]:
        extra = self.info.json_schema_extra
        return list(extra.get("env", [])) if isinstance(extra, dict) else []


def leaves(model: type[BaseModel], prefix: Path = ()) -> Iterator[Leaf]:
    """Every leaf field of a settings model, into nested sections and registered plugins' sub-models."""
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        ann = info.annotation
        marker = next((m for m in info.metadata if isinstance(m, PluginMap)), None)
        if marker is not None:
            for plugin_name, plugin in marker.registry.items():
                sub = _settings_model(plugin)
                if sub is not None:
                    yield from leaves(sub, (*path, plugin_name))
        elif inspect.isclass(ann) and issubclass(ann, BaseModel):
            yield from leaves(ann, path)
        else:
            yield Leaf(path, info)


def secret_paths(model: type[BaseModel]) -> list[Path]:
    return [leaf.path for leaf in leaves(model) if leaf.is_secret]


def env_aliases(model: type[BaseModel]) -> dict[str, Leaf]:
    """Environment variable name -> the field it sets, from the fields' own ``env`` lists."""
    return {name: leaf for leaf in leaves(model) for name in leaf.env_names}


@dataclass(frozen=True)
class PluginChoice:
    """Marks a field whose value names a plugin of ``registry`` (the dashboard offers its names)."""

    registry: Registry


def plugin_name(registry: Registry) -> Any:
    """A ``str`` that must name a registered plugin. A saved value naming a plugin no longer installed
    still loads (the place that uses it says which plugin is missing); a new value must be known."""

    def check(value: str, info: ValidationInfo) -> str:
        value = value.strip()
        if value not in registry and not (info.context or {}).get("stored"):
            raise ValueError(f"unknown {registry.kind} {value!r} (choose one of {', '.join(registry.names())})")
        return value

    return Annotated[str, PluginChoice(registry), AfterValidator(check)]


def choices_of(info: FieldInfo) -> list[str] | None:
    marker = next((m for m in info.metadata if isinstance(m, PluginChoice)), None)
    return marker.registry.names() if marker is not None else None


def revealed(data: Any) -> Any:
    """A dumped settings dict with every SecretStr replaced by its plain value (for the stored row
    and cache keys only: never for pages, logs or the CLI)."""
    if isinstance(data, dict):
        return {k: revealed(v) for k, v in data.items()}
    if isinstance(data, list):
        return [revealed(v) for v in data]
    return reveal(data)


def plain_dump(model: BaseModel, **kwargs: Any) -> dict:
    return revealed(model.model_dump(**kwargs))


def plugin_maps(model: type[BaseModel]) -> Iterator[tuple[str, str, type[BaseModel]]]:
    """(field, plugin name, its settings sub-model) for each plugin-map field of one section."""
    for name, info in model.model_fields.items():
        marker = next((m for m in info.metadata if isinstance(m, PluginMap)), None)
        if marker is not None:
            for plugin_name, plugin in marker.registry.items():
                sub = _settings_model(plugin)
                if sub is not None:
                    yield name, plugin_name, sub
