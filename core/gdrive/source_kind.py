"""The ``gdrive`` source kind: it syncs with its owner's OAuth connection (core/gdrive/service.py).
Light to import: the Google client libraries load only when a Drive source syncs."""

from __future__ import annotations

from core.sources.plugin import SourceKind, register_source_kind


def _sync(parts, box, actor, row, **kwargs):
    from core.gdrive.service import sync_source

    return sync_source(parts, box, actor, row, **kwargs)


register_source_kind(SourceKind("gdrive", sync=_sync))
