"""Web search in answering — normal mode only (strict mode never searches the web).

The chat's "Web search" switch (``web=True``) with ``web_search.enable_web_search`` on opens a
``WebSession`` for the message. How it reaches the model follows the two answering switches:

| File Context | Builtin Tools | web search                                                  |
|---|---|---|
| on  | on  | results injected as context, and the ``search_web`` tool offered |
| on  | off | results injected as context                                   |
| off | on  | only the ``search_web`` tool (the model decides)               |
| off | off | nothing is searched (a notice says why)                       |

Inputs are typed: the settings, the chat model (None = extractive: no query generation), the
answer run as the event sink, and the index-and-search function. Statuses are ``web_search``
answering events (``data``: action, done, error, urls, queries) shown live in the chat.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from core.answering.prompts import ContextItem
from core.answering.run import AnswerRun
from core.llm.base import ChatMessage, ChatModel, TextDelta, ToolSpec
from core.llm.providers import quotes_only
from core.notices import NOTICES, notice
from core.settings.model import Settings
from core.websearch.flow import (
    IndexAndSearch,
    WebContext,
    WebSearchRequest,
    WebStatus,
    run_web_search,
)

SEARCH_WEB = ToolSpec(
    "search_web",
    "Search the web and read the top result pages. Returns numbered passages with their page title and URL; "
    "cite them as [n].",
    {"type": "object", "properties": {"query": {"type": "string", "description": "The web search query."}},
     "required": ["query"]},
)
# each said in the question's language (core/notices.py); the English texts, for the tests and the API's docs
STRICT_NOTICE = NOTICES["strict.web"]["en"]
DISABLED_NOTICE = NOTICES["web.disabled"]["en"]
SWITCHES_OFF_NOTICE = NOTICES["web.switches_off"]["en"]
HISTORY_TURNS = 4


def _history_text(earlier: list[ChatMessage]) -> str:
    return "\n".join(f"{m.role}: {m.content[:500]}" for m in earlier[-HISTORY_TURNS:] if m.role in ("user", "assistant"))


def items_of(ctx: WebContext) -> list[ContextItem]:
    """Web passages as context items: cited by page title, located by URL."""
    kind = "document" if ctx.whole_documents else "chunk"
    return [ContextItem(text=p.text, source=p.title or p.url, location=p.url, score=p.score, chunk_id=p.chunk_id,
                        kind=kind, origin="web") for p in ctx.passages]


@dataclass
class WebSession:
    settings: Settings
    run: AnswerRun
    message: str
    model: ChatModel | None  # None (or the extractive answerer): the message is the query
    index_and_search: IndexAndSearch
    history: list[ChatMessage] = field(default_factory=list)
    injected: bool = False  # web content went into the prompt (Ollama's context warning)
    contexts: list[WebContext] = field(default_factory=list)

    def _query_model(self):
        if self.model is None or quotes_only(self.model):
            return None

        def ask(prompt: str) -> str:
            self.run.answer.llm_called = True
            return "".join(e.text for e in self.model.stream([ChatMessage("user", prompt)], None)
                           if isinstance(e, TextDelta))

        return ask

    def _status(self, status: WebStatus) -> None:
        self.run.emit("web_search", status.description, action="web_search", done=status.done, error=status.error,
                      urls=list(status.urls), queries=list(status.queries))

    def _search(self, queries: list[str] | None, retrieval_query: str) -> list[ContextItem]:
        request = WebSearchRequest(
            message=retrieval_query, settings=self.settings.web_search, parsing=self.settings.parsing,
            query_model=self._query_model(), index_and_search=self.index_and_search, on_status=self._status,
            on_notice=self.run.notice, history=_history_text(self.history), queries=queries,
        )
        started = time.perf_counter()
        ctx = run_web_search(request)
        elapsed = (time.perf_counter() - started) * 1000
        timings = self.run.answer.timings_ms
        timings["web_search_ms"] = round(timings.get("web_search_ms", 0.0) + elapsed, 2)  # tool calls add up
        for name, wall in ctx.stages.wall_ms.items():  # web_<stage>_ms and web_<stage>_cpu_ms (websearch/stages.py)
            timings[f"web_{name}_ms"] = round(timings.get(f"web_{name}_ms", 0.0) + wall, 2)
            cpu_key = f"web_{name}_cpu_ms"
            timings[cpu_key] = round(timings.get(cpu_key, 0.0) + ctx.stages.cpu_ms.get(name, 0.0), 2)
        self.contexts.append(ctx)
        return items_of(ctx)

    def context_items(self) -> list[ContextItem]:
        """Web context for the message (File Context on)."""
        items = self._search(None, self.message)
        self.injected = self.injected or bool(items)
        return items

    @property
    def may_inject(self) -> bool:
        """Web content is (or, through the tool, may be) in the prompt."""
        return self.injected or bool(self.tools())

    def tools(self) -> list[ToolSpec]:
        return [SEARCH_WEB] if self.settings.answering.builtin_tools else []

    def search_tool(self, query: str) -> list[ContextItem]:
        """The ``search_web`` tool: the model's query, searched as given."""
        items = self._search([query], query)
        self.injected = self.injected or bool(items)
        return items


def open_session(settings: Settings, run: AnswerRun, message: str, *, model: ChatModel | None,
                 index_and_search: IndexAndSearch, history: list[ChatMessage] | None = None) -> WebSession | None:
    """A session when web search may run for this message in normal mode; None (with a notice) otherwise."""
    if not settings.web_search.enable_web_search:
        run.notice(notice("web.disabled"))
        return None
    a = settings.answering
    if not a.file_context and not a.builtin_tools:
        run.notice(notice("web.switches_off"))
        return None
    return WebSession(settings, run, message, model, index_and_search, list(history or []))
