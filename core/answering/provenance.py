"""Where an answer came from, for the badge under it: the knowledge base, a file attached to
the chat, a web page, the model's general knowledge, a curated (approved) answer — or nowhere.

Read from what the Answer (or a stored message) carries: its citations — each stores its
``origin`` (kb, attachment, url, web), which decides; citations stored before origins existed
are told apart by their ``kb_id`` and source name —, ``llm_called`` and ``from_kb``. An answer
that declares its own ``sources`` wins.
"""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Any, Literal

Source = Literal["curated", "knowledge_base", "attachment", "web", "general", "none"]
SOURCES: tuple[Source, ...] = ("curated", "knowledge_base", "attachment", "web", "general", "none")
# Names a newer engine may use for the same places.
_ALIASES = {"kb": "knowledge_base", "knowledge_base": "knowledge_base", "attachment": "attachment",
            "chat_file": "attachment", "chat_attachment": "attachment", "file": "attachment", "web": "web",
            "web_search": "web", "url": "web", "general": "general", "general_knowledge": "general",
            "model": "general", "none": "none", "curated": "curated"}


def _plain(c: Any) -> dict:
    return asdict(c) if is_dataclass(c) else dict(c)


def citation_source(c: Any) -> Source:
    d = _plain(c)
    stored = _ALIASES.get(str(d.get("origin") or "").lower())
    if stored:  # a web-search passage has no kb id and a page title for its name: only its origin tells
        return stored  # type: ignore[return-value]
    if d.get("kb_id"):
        return "knowledge_base"
    if str(d.get("source_name", "")).startswith(("http://", "https://")):
        return "web"
    return "attachment"


def answer_sources(answer: Any) -> list[Source]:
    """The places an answer drew on, in a stable order; ["none"] when it drew on nothing."""
    declared = getattr(answer, "sources", None)
    if declared:
        named = [_ALIASES.get(str(getattr(s, "kind", s)).lower()) for s in declared]
        found = {s for s in named if s}
        if found:
            return [s for s in SOURCES if s in found]  # type: ignore[misc]
    citations = getattr(answer, "citations", None) or []
    found = {citation_source(c) for c in citations}
    if not found and getattr(answer, "llm_called", False):
        # a model answered with nothing cited: from the passages it was given, or from itself
        found.add("knowledge_base" if getattr(answer, "hit", False) and getattr(answer, "from_kb", True) else "general")
    return [s for s in SOURCES if s in found] or ["none"]  # type: ignore[list-item]
