"""Builtin tools offered to the model through native function calling.

``query_knowledge_bases`` searches (with the mode's threshold), ``view_knowledge_file``
returns a file's parsed text, ``search_chats`` finds the user's earlier messages. Every
result that comes from a document is numbered like injected context, so the answer can
cite it as ``[n]`` and the citations list includes it.

Strict mode offers knowledge-base search alone, without a choice of knowledge bases: it
searches exactly the question's scope (``strict_toolbox``), with the same search function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from core.chats.store import ChatStore
from core.answering.context import Document, KnowledgeAccess
from core.answering.prompts import ContextItem, format_context
from core.answering.retrieve import retrieve
from core.errors import CoreError
from core.llm.base import ToolCall, ToolSpec
from core.retrieval.search import SearchTarget

_QUERY = {"type": "string", "description": "What to search for."}
QUERY_KB = ToolSpec(
    "query_knowledge_bases",
    "Search the knowledge bases for passages relevant to a query. Returns numbered passages to cite as [n].",
    {"type": "object", "properties": {
        "query": _QUERY,
        "knowledge_bases": {"type": "array", "items": {"type": "string"},
                            "description": "Names of knowledge bases to search (default: the ones in use)."},
    }, "required": ["query"]},
)
# Strict: the same tool name, no choice of knowledge bases (the scope is fixed for the question).
QUERY_KB_STRICT = ToolSpec(
    QUERY_KB.name,
    "Search this question's knowledge bases for passages relevant to a query. Returns numbered passages to cite as [n].",
    {"type": "object", "properties": {"query": _QUERY}, "required": ["query"]},
)
VIEW_FILE = ToolSpec(
    "view_knowledge_file",
    "Read the text of one knowledge-base file, by file id or file name. Returned as one numbered passage.",
    {"type": "object", "properties": {"file": {"type": "string", "description": "File id or name."}}, "required": ["file"]},
)
SEARCH_CHATS = ToolSpec(
    "search_chats",
    "Search the user's earlier chat messages.",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
ALL_TOOLS = [QUERY_KB, VIEW_FILE, SEARCH_CHATS]
STRICT_TOOLS = [QUERY_KB_STRICT]  # strict mode: knowledge-base search only
VIEW_FILE_MAX_CHARS = 12_000


@dataclass
class ToolBox:
    knowledge: KnowledgeAccess
    targets: list[SearchTarget]  # the question's scope: what a search without a choice searches
    file_ids: tuple[str, ...]
    top_k: int
    min_score: float
    next_n: int  # the citation number the next passage gets
    allowed: list[ToolSpec] = field(default_factory=lambda: list(ALL_TOOLS))
    origins: dict[str, str] = field(default_factory=dict)  # chat file id -> attachment | url
    read_file: Callable[[str], Document] | None = None  # normal mode only
    chats: ChatStore | None = None  # normal mode only
    fixed_scope: bool = False  # strict: the model cannot widen the search
    cited: list[ContextItem] = field(default_factory=list)  # every passage a tool returned
    web_search: Callable[[str], list[ContextItem]] | None = None  # search_web (core/answering/web.py), normal mode only

    def run(self, call: ToolCall) -> str:
        """The tool's result as text for the model; errors are reported to the model, not raised."""
        if call.name not in {t.name for t in self.allowed}:
            return f"error: tool {call.name!r} is not available"
        try:
            if call.name == QUERY_KB.name:
                return self._query(str(call.arguments.get("query", "")), call.arguments.get("knowledge_bases"))
            if call.name == VIEW_FILE.name and self.read_file is not None:
                return self._view(str(call.arguments.get("file", "")))
            if call.name == SEARCH_CHATS.name and self.chats is not None:
                return self._search_chats(str(call.arguments.get("query", "")))
            if call.name == "search_web" and self.web_search is not None:
                query = str(call.arguments.get("query", "")).strip()
                if not query:
                    return "error: query is empty"
                found = self.web_search(query)
                return format_context(self._number(found)) if found else "The web search found nothing usable."
            return f"error: tool {call.name!r} is not available"
        except CoreError as exc:
            return f"error: {exc.message}"

    def _number(self, items: list[ContextItem]) -> list[ContextItem]:
        for item in items:
            item.n, self.next_n = self.next_n, self.next_n + 1
            item.kind = "tool"
        self.cited.extend(items)
        return items

    def _targets(self, names) -> tuple[list[SearchTarget], tuple[str, ...]]:
        if self.fixed_scope or not (isinstance(names, list) and names):
            return self.targets, self.file_ids
        wanted = {str(n).lower() for n in names}
        chosen = [kb.target() for kb in self.knowledge.kbs if kb.name.lower() in wanted or kb.id in wanted]
        if not chosen:
            raise CoreError("no knowledge base with those names: " + ", ".join(sorted(wanted)))
        return chosen, ()

    def _query(self, query: str, kbs) -> str:
        if not query.strip():
            return "error: query is empty"
        targets, file_ids = self._targets(kbs)
        found = retrieve(self.knowledge.search, query, targets, top_k=self.top_k, min_score=self.min_score,
                         file_ids=file_ids, origins=self.origins)
        if not found.items:
            return "No passage in the knowledge bases is relevant to this query."
        return format_context(self._number(found.items))

    def _view(self, ref: str) -> str:
        doc = self.read_file(ref)  # type: ignore[misc]
        text = doc.text
        note = "" if len(text) <= VIEW_FILE_MAX_CHARS else f"\n(first {VIEW_FILE_MAX_CHARS} of {len(text)} characters)"
        item = ContextItem(text=text[:VIEW_FILE_MAX_CHARS], source=doc.name, score=1.0, file_id=doc.file_id,
                           kb_id=doc.kb_id, kind="document", origin=doc.origin)
        return format_context(self._number([item])) + note

    def _search_chats(self, query: str) -> str:
        found = self.chats.search(query)  # type: ignore[union-attr]
        if not found:
            return "No earlier chat message matches."
        return "\n\n".join(f"[chat '{c.title or c.id}', {m.role}, {m.created_at:%Y-%m-%d}]\n{m.content[:500]}" for c, m in found)
