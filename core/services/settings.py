"""Settings and the models they configure: what is in force, saving, the header strip, checks."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from core.embeddings.base import Embedder
from core.embeddings.factory import make_embedder
from core.llm.factory import provider_for
from core.retrieval.rerank import Reranker
from core.errors import InvalidInput
from core.services.cli_groups import SETTINGS
from core.services.declare import Arg, Cli, Remote, operation
from core.services.runtime import Runtime
from core.settings.model import Settings, legacy_keys
from core.settings.store import mask_secret_fields, masked
from core.types import Actor


def _json_or_text(word: str) -> Any:
    """A value typed on the command line: JSON (true, 0.5, "text", {...}), else the bare string."""
    try:
        return json.loads(word)
    except json.JSONDecodeError:
        return word


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) if isinstance(value, (dict, list)) else str(value)


class SettingsService:
    def __init__(self, rt: Runtime):
        self._rt = rt

    @operation(access="open", why="masked (asserted by the security walk)")
    def settings(self) -> Settings:
        """The settings in force now, secrets masked (a change saved by any process applies on the next call)."""
        return Settings.model_validate(masked(self._rt.settings()))

    @operation(access="open", why="masked (asserted by the security walk)", handoff=True)
    def settings_masked(self) -> dict:
        return masked(self._rt.settings())

    @operation(access="open", why="masked (asserted by the security walk)")
    def settings_overridden(self) -> dict:
        """Settings set by the environment (locked in the UI), secrets masked."""
        return mask_secret_fields(self._rt.settings_store.overridden())

    # the saved settings are not sent back through the hand-off: they hold secrets
    @operation(access="admin", admin_does="change settings", handoff=Remote(send_result=False))
    def save_settings(self, actor: Actor, patch: dict) -> Settings:
        return self._rt.settings_store.save(patch, saved_by=actor.name or actor.user_id)

    # get, set: the CLI's settings group lists them in this order (core/cli/derived.py)
    @operation(access="admin", admin_does="read settings one by one", handoff=True,
               cli=Cli("get", group=SETTINGS, args={"key": Arg(nargs="?")}, human=_shown))
    def setting(self, actor: Actor, key: Annotated[str | None, Field(
            description="dotted key, e.g. strict.rag_strict_mode")] = None) -> Any:
        # a setting, or a section of them, secrets masked (none: all of them); a setting that moved is
        # found under its old name too
        data: Any = masked(self._rt.settings())
        moved = {".".join(old): ".".join(new) for old, new in legacy_keys()}
        for part in (moved.get(key, key).split(".") if key else []):
            if not isinstance(data, dict) or part not in data:
                raise InvalidInput(f"no setting named '{key}'")
            data = data[part]
        return data

    @operation(access="admin", admin_does="change settings", handoff=True,
               cli=Cli("set", group=SETTINGS, human=lambda r: f"saved {r['saved']} = {r['value']!r}", args={
                   "value": Arg(parse=_json_or_text, help='JSON value (true, 0.5, "text") or a bare string')}))
    def save_setting(self, actor: Actor, key: str, value: Any) -> dict:
        # one setting (or a section) by its dotted key; what is said back has its secrets masked (a key
        # typed on the command line is never printed back)
        patch: dict = {}
        node = patch
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
        self._rt.settings_store.save(patch, saved_by=actor.name or actor.user_id)
        shown: Any = mask_secret_fields(patch)
        for part in key.split("."):
            shown = shown[part]
        return {"saved": key, "value": shown}

    @operation(access="open", why="an in-process model object for core callers")
    def embedder(self) -> Embedder:
        return make_embedder(self._rt.settings().embedding)

    @operation(access="open", why="an in-process model object for core callers")
    def reranker(self, settings: Settings | None = None) -> Reranker | None:
        return self._rt.reranker(settings)

    @operation(access="open", why="mode and model names (no secrets; asserted by the security walk)")
    def status(self) -> dict:
        """What the header strip shows: mode, models, store, thresholds."""
        s, config = self.settings(), self._rt.config
        return {
            "mode": "strict" if s.strict.rag_strict_mode else "normal",
            "embedder": f"{s.embedding.provider}/{s.embedding.model}",
            "llm": "extractive (no LLM configured)" if provider_for(s.llm).quotes_only else f"{s.llm.provider}/{s.llm.model}",
            "vector_store": "Qdrant server" if config.qdrant_url else "embedded Qdrant (edge)",
            "database": "PostgreSQL" if not self._rt.db.is_sqlite else "SQLite",
            "strict_min_similarity": s.strict.rag_strict_min_similarity,
            "strict_max_results": s.strict.rag_strict_max_results,
            "min_similarity": s.retrieval.rag_min_similarity,
            "max_results": s.retrieval.rag_max_results,
            "llm_provider": s.llm.provider,  # pages word these in the user's language
            "store_kind": "server" if config.qdrant_url else "embedded",
        }

    @operation(access="admin", admin_does="test the language model connection")
    def test_llm(self, actor: Actor) -> str:
        """A cheap connectivity check of the configured chat model; raises LLMError."""
        from core.llm.factory import make_chat_model

        return make_chat_model(self._rt.settings().llm).check()

    @operation(access="open", why="a fixed sentence")
    def context_warning(self, web: bool = False) -> str | None:
        """Ollama's context length still at its 2048 default while context is injected (below
        8192 with ``web``: the chat's Web search switch is on)."""
        from core.llm.ollama_chat import needs_context_warning

        s = self.settings()
        web = web and s.web_search.enable_web_search
        return (needs_context_warning(s.llm.context_length, s.answering.file_context or web, web=web)
                if provider_for(s.llm).small_default_context else None)
