"""The ``folder`` source kind: a folder on the server (a local disk or a network mount), synced.

Only an admin adds one, and only under a root an admin listed in
``sources.kinds.folder.allowed_roots`` (empty by default: the kind is off). The path is resolved
(symlinks and ``..``) before it is compared with the roots, when added and again on every sync,
so a link cannot lead a source out of them. Light to import: the walk lives in ``tree.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from core.errors import InvalidInput, PermissionDenied
from core.settings.fields import PluginSettings
from core.sources.plugin import SourceContext, SourceKind, register_source_kind


class FolderSourceSettings(PluginSettings):
    allowed_roots: list[str] = Field(default_factory=list, description=(
        "Server folders (absolute paths) under which an admin may add a folder source; empty = folder sources are off."))


def resolved_roots(own: FolderSourceSettings | None) -> list[Path]:
    return [Path(os.path.realpath(r)) for r in (own.allowed_roots if own else []) if r.strip()]


def check_inside(path: str, own: FolderSourceSettings | None) -> Path:
    """The folder, resolved, when it lies under an allowed root; PermissionDenied otherwise."""
    roots = resolved_roots(own)
    if not roots:
        raise PermissionDenied("folder sources are off: an admin lists the server folders they may come from in "
                               "the settings (sources.kinds.folder.allowed_roots)")
    real = Path(os.path.realpath(path))
    if not any(real == root or real.is_relative_to(root) for root in roots):
        raise PermissionDenied(f"the folder {path} is not under an allowed root ({', '.join(map(str, roots))}); "
                               "links and '..' are followed before the check")
    return real


def _check(config: dict) -> dict:
    path = str(config.get("path", "")).strip()
    if not path or not os.path.isabs(path):
        raise InvalidInput(f"a folder source needs an absolute server path (got {path or 'nothing'!r})")
    return {"path": path}


def _admit(config: dict, settings) -> dict:
    real = check_inside(config["path"], settings.sources.kinds.get("folder"))
    if not real.is_dir():
        raise InvalidInput(f"the folder {config['path']} does not exist or is not a folder")
    return {"path": str(real)}


def _open(ctx: SourceContext):
    from core.sources.folder.tree import FolderSource

    return FolderSource(ctx.parts, ctx.row.id, ctx.row.config["path"], ctx.own)


register_source_kind(SourceKind("folder", open=_open, settings=FolderSourceSettings, check_config=_check,
                                admit=_admit, admin_only=True,
                                title=lambda config: f"Folder: {config['path']}"))
