"""Web search: one small module per search engine, all returning ``SearchResult``; the flow that
turns a chat message into web context (query generation, search, page loading, indexing) is
``flow.py``; answering reaches it through ``core/answering/web.py``."""

from core.websearch.base import SearchResult, WebSearchError

__all__ = ["SearchResult", "WebSearchError"]
