"""Builtin tools offered to the model through native function calling.

``query_knowledge_bases`` searches (with the mode's threshold), ``view_knowledge_file``
returns a file's parsed text, ``search_chats`` finds the user's earlier messages. Every
result that comes from a document is numbered like injected context, so the answer can
cite it as ``[n]`` and the citations list includes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from core.answering import chats
from core.answering.prompts import ContextItem, format_context
from core.answering.retrieve import retrieve
from core.errors import CoreError
from core.llm.base import ToolCall, ToolSpec
from core.types import Actor

if TYPE_CHECKING:
    from core.engine import Engine

QUERY_KB = ToolSpec(
    "query_knowledge_bases",
    "Search the knowledge bases for passages relevant to a query. Returns numbered passages to cite as [n].",
    {"type": "object", "properties": {
        "query": {"type": "string", "description": "What to search for."},
        "knowledge_bases": {"type": "array", "items": {"type": "string"},
                            "description": "Names of knowledge bases to search (default: the ones in use)."},
    }, "required": ["query"]},
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
STRICT_TOOLS = [QUERY_KB]  # strict mode: knowledge-base search only
VIEW_FILE_MAX_CHARS = 12_000


@dataclass
class ToolBox:
    engine: "Engine"
    actor: Actor
    kbs: list[str] | None
    chat_id: str | None
    top_k: int
    min_score: float
    next_n: int  # the citation number the next passage gets
    allowed: list[ToolSpec] = field(default_factory=lambda: list(ALL_TOOLS))
    cited: list[ContextItem] = field(default_factory=list)  # every passage a tool returned
    web_search: Callable[[str], list[ContextItem]] | None = None  # search_web (core/answering/web.py)

    def run(self, call: ToolCall) -> str:
        """The tool's result as text for the model; errors are reported to the model, not raised."""
        if call.name not in {t.name for t in self.allowed}:
            return f"error: tool {call.name!r} is not available"
        try:
            if call.name == QUERY_KB.name:
                return self._query(str(call.arguments.get("query", "")), call.arguments.get("knowledge_bases"))
            if call.name == VIEW_FILE.name:
                return self._view(str(call.arguments.get("file", "")))
            if call.name == "search_web" and self.web_search is not None:
                query = str(call.arguments.get("query", "")).strip()
                found = self.web_search(query) if query else None
                if found is None:
                    return "error: query is empty"
                return format_context(self._number(found)) if found else "The web search found nothing usable."
            return self._search_chats(str(call.arguments.get("query", "")))
        except CoreError as exc:
            return f"error: {exc.message}"

    def _number(self, items: list[ContextItem]) -> list[ContextItem]:
        for item in items:
            item.n, self.next_n = self.next_n, self.next_n + 1
            item.kind = "tool"
        self.cited.extend(items)
        return items

    def _query(self, query: str, kbs) -> str:
        if not query.strip():
            return "error: query is empty"
        chosen = [str(k) for k in kbs] if isinstance(kbs, list) and kbs else self.kbs
        found = retrieve(self.engine, self.actor, query, kbs=chosen, chat_id=self.chat_id,
                         top_k=self.top_k, min_score=self.min_score)
        if not found.items:
            return "No passage in the knowledge bases is relevant to this query."
        return format_context(self._number(found.items))

    def _view(self, ref: str) -> str:
        rec = self._find_file(ref)
        doc = self.engine.file_text(self.actor, rec.id)
        if doc is None:
            return f"error: no parsed text is stored for '{rec.name}'"
        text = doc.text
        note = "" if len(text) <= VIEW_FILE_MAX_CHARS else f"\n(first {VIEW_FILE_MAX_CHARS} of {len(text)} characters)"
        item = ContextItem(text=text[:VIEW_FILE_MAX_CHARS], source=rec.name, score=1.0, file_id=rec.id,
                           kb_id=rec.kb_id or "", kind="document")
        return format_context(self._number([item])) + note

    def _find_file(self, ref: str):
        try:
            return self.engine.get_file(self.actor, ref)
        except CoreError:
            matches = [f for f in self.engine.list_files(self.actor, status="indexed") if f.name == ref]
            if not matches:
                raise
            return matches[0]

    def _search_chats(self, query: str) -> str:
        found = chats.search_messages(self.engine.parts, self.actor, query)
        if not found:
            return "No earlier chat message matches."
        return "\n\n".join(f"[chat '{c.title or c.id}', {m.role}, {m.created_at:%Y-%m-%d}]\n{m.content[:500]}" for c, m in found)
