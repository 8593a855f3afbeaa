"""The ``web`` source kind: pages added by URL, re-fetched through the guarded URL loader."""

from __future__ import annotations

from core.errors import InvalidInput
from core.sources.plugin import SourceContext, SourceKind, register_source_kind


def _open(ctx: SourceContext):
    from core.ingest.service import fetch_url_doc
    from core.sources.web import WebPagesSource

    parts = ctx.parts
    return WebPagesSource(list(ctx.row.config.get("urls", [])), lambda url: fetch_url_doc(url, parts.snapshot().settings))


def _check(config: dict) -> dict:
    urls = sorted(dict.fromkeys(u.strip() for u in config.get("urls", []) if u.strip()))
    bad = [u for u in urls if not u.startswith(("http://", "https://"))]
    if not urls or bad:
        raise InvalidInput(f"web pages need http(s) URLs (got: {', '.join(bad) or 'none'})")
    return {"urls": urls}


register_source_kind(SourceKind("web", open=_open, check_config=_check,
                                title=lambda config: f"Web pages: {len(config['urls'])}"))
