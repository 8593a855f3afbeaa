"""Per-knowledge-base chunking: a knowledge base may set its own chunk size, overlap and
min-size target, and whether its index stores token vectors (late interaction); everything else
follows the global chunking settings. Ingest and reindex
read the effective settings from here (the one place that combines them)."""

from __future__ import annotations

from pydantic import ValidationError

from core.accounts.access import resolve_kb
from core.db.models import KnowledgeBase, utcnow
from core.errors import InvalidInput
from core.ingest.parts import EngineParts
from core.settings.model import ChunkingSettings, Settings
from core.types import Actor

KB_CHUNKING_FIELDS = ("chunk_size", "chunk_overlap", "chunk_min_size_target", "token_vectors")
_KB_FLAGS = ("token_vectors",)  # yes/no fields; the others are sizes


def effective_chunking(settings: Settings, override: dict | None) -> ChunkingSettings:
    if not override:
        return settings.chunking
    return ChunkingSettings.model_validate(settings.chunking.model_dump() | override)


def settings_for_kb(settings: Settings, kb: KnowledgeBase | None) -> Settings:
    """The settings snapshot with the knowledge base's own chunking applied."""
    if kb is None or not kb.chunking_override:
        return settings
    return settings.model_copy(update={"chunking": effective_chunking(settings, kb.chunking_override)})


def settings_for_kb_id(parts: EngineParts, settings: Settings, kb_id: str | None) -> Settings:
    if not kb_id:
        return settings
    with parts.db.read() as s:
        return settings_for_kb(settings, s.get(KnowledgeBase, kb_id))


def set_kb_chunking(parts: EngineParts, actor: Actor, kb_ref: str, override: dict | None) -> KnowledgeBase:
    """Store (or with None / {} clear) a knowledge base's own chunking; a reindex applies it."""
    unknown = set(override or {}) - set(KB_CHUNKING_FIELDS)
    if unknown:
        raise InvalidInput(f"a knowledge base can set only {', '.join(KB_CHUNKING_FIELDS)} (not {', '.join(sorted(unknown))})")
    override = {k: _flag(k, v) if k in _KB_FLAGS else int(v) for k, v in (override or {}).items()}
    try:
        effective_chunking(parts.snapshot().settings, override)
    except ValidationError as exc:
        raise InvalidInput("; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())) from None
    with parts.db.write() as s:
        kb = resolve_kb(s, actor, kb_ref, write=True)
        kb.chunking_override, kb.updated_at = override, utcnow()
        s.add(kb)
    return kb


def _flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "on", "off", "1", "0", "yes", "no"):
        return value.strip().lower() in ("true", "on", "1", "yes")
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise InvalidInput(f"{name} must be true or false (not {value!r})")
