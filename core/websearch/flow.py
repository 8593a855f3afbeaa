"""One web search for one chat message: query generation, search, page loading, indexing.

1. "Generating search query": a chat model is asked for ``{"queries": [...]}`` (see
   ``queries.py`` for every fallback); without one (the extractive default) the message is the
   query and no model is called. No query → "No search query generated", nothing else happens.
2. "Searching the web": the queries run in parallel; URLs de-duplicated in order; the domain filter.
3. Pages loaded concurrently through the URL loader (SSRF guard, caps, content types), or the
   engine's snippets with ``bypass_web_search_web_loader``.
4. Documents indexed into a web-search collection and searched (``index_and_search``), or kept
   whole with ``bypass_web_search_embedding_and_retrieval`` (the caller fits them to the budget).
5. "Searched N sites" with the URLs; "No search results found"; any error → "An error occurred
   while searching the web" (an error status with the queries) — the answer still comes.

Inputs are typed and small: the settings sections, a query-model callable or None, status and
notice sinks, and the index-and-search function. Nothing here knows the Engine.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

from core.errors import CoreError
from core.notices import Notice, notice
from core.parsers.url_guard import AllowList
from core.settings.model import ParsingSettings, WebSearchSettings
from core.types import DocPart, ParsedDoc
from core.websearch.base import EngineHttp, SearchResult, engine_client
from core.websearch.collections import collection_name
from core.websearch.engines import check_configured, search_one
from core.websearch.filters import dedupe, filter_domains
from core.websearch.pages import load_pages
from core.websearch.queries import parse_queries, query_prompt
from core.websearch.stages import StageClock, stage

log = logging.getLogger(__name__)

GENERATING = "Generating search query"
NO_QUERY = "No search query generated"
SEARCHING = "Searching the web"
NO_RESULTS = "No search results found"
FAILED = "An error occurred while searching the web"


@dataclass(frozen=True)
class WebStatus:
    """A status line for the chat (the reference's ``{"action": "web_search", ...}`` events)."""

    description: str
    done: bool = False
    error: bool = False
    urls: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()


@dataclass
class WebDocument:
    url: str
    title: str
    doc: ParsedDoc  # the parsed page, or the engine's snippet as a one-part document


@dataclass
class WebPassage:
    url: str
    title: str
    text: str
    score: float
    chunk_id: str = ""


QueryModel = Callable[[str], str]  # prompt → the model's reply text
# (collection, docs, retrieval queries: the message first, then the search queries) → passages
IndexAndSearch = Callable[[str, list[WebDocument], list[str]], list[WebPassage]]


@dataclass
class WebSearchRequest:
    message: str  # the user's message (also the retrieval query)
    settings: WebSearchSettings
    parsing: ParsingSettings
    query_model: QueryModel | None  # None: the message is the query, no model call
    index_and_search: IndexAndSearch
    on_status: Callable[[WebStatus], None]
    on_notice: Callable[[Notice], None]  # said in the question's language by the answer run
    history: str = ""  # recent turns, for the query prompt
    queries: list[str] | None = None  # given by the caller (the search_web tool): no generation


@dataclass
class WebContext:
    queries: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)  # the sites whose content was used
    passages: list[WebPassage] = field(default_factory=list)
    whole_documents: bool = False  # bypass_web_search_embedding_and_retrieval
    collection: str = ""
    error: str = ""
    stages: StageClock = field(default_factory=StageClock)  # wall and CPU ms per stage (stages.py)


def generate_queries(req: WebSearchRequest) -> list[str]:
    if req.queries is not None:
        return [q for q in (s.strip() for s in req.queries) if q] or [req.message]
    req.on_status(WebStatus(GENERATING))
    if req.query_model is None:
        return [req.message]
    try:
        reply = req.query_model(query_prompt(req.message, req.history))
    except Exception as exc:  # any failure of the model → the message is the query (logged, not hidden)
        log.warning("search query generation failed, using the message: %s", exc)
        req.on_notice(notice("web.no_query"))
        return [req.message]
    return parse_queries(reply, req.message)


def run_web_search(req: WebSearchRequest) -> WebContext:
    clock = StageClock()
    with clock.current():
        context = _run(req)
    context.stages = clock
    return context


def _run(req: WebSearchRequest) -> WebContext:
    with stage("queries"):
        queries = generate_queries(req)
    if not queries:
        req.on_status(WebStatus(NO_QUERY, done=True))
        return WebContext()
    try:
        return _search(req, queries)
    except Exception as exc:  # never a dead chat: an error status, and the answer goes on
        message = exc.message if isinstance(exc, CoreError) else f"unexpected error ({type(exc).__name__})"
        if not isinstance(exc, CoreError):
            log.exception("web search failed")
        req.on_status(WebStatus(FAILED, done=True, error=True, queries=tuple(queries)))
        req.on_notice(notice("web.failed", error=message))
        return WebContext(queries=queries, error=message)


def _search(req: WebSearchRequest, queries: list[str]) -> WebContext:
    cfg = req.settings
    req.on_status(WebStatus(SEARCHING, queries=tuple(queries)))
    check_configured(cfg)
    with stage("engine"):
        results = search_all(cfg, queries, req.on_notice, AllowList.of(req.parsing))
    results, dropped = filter_domains(dedupe(results), cfg.web_search_domain_filter_list)
    if dropped:
        req.on_notice(notice("web.dropped", n=len(dropped)))
    if not results:
        req.on_status(WebStatus(NO_RESULTS, done=True, error=True, queries=tuple(queries)))
        return WebContext(queries=queries)
    with stage("load"):
        docs = _documents(req, results)
    if not docs:
        req.on_status(WebStatus(NO_RESULTS, done=True, error=True, queries=tuple(queries)))
        return WebContext(queries=queries)
    urls = [d.url for d in docs]
    if cfg.bypass_web_search_embedding_and_retrieval:
        passages = [WebPassage(d.url, d.title, d.doc.text, 1.0) for d in docs]
        context = WebContext(queries, urls, passages, whole_documents=True)
    else:
        name = collection_name(queries)
        retrieval_queries = list(dict.fromkeys([req.message, *queries]))
        context = WebContext(queries, urls, req.index_and_search(name, docs, retrieval_queries), collection=name)
    req.on_status(WebStatus(f"Searched {len(urls)} site{'s' if len(urls) != 1 else ''}", done=True,
                            urls=tuple(urls), queries=tuple(queries)))
    return context


def search_all(cfg: WebSearchSettings, queries: list[str], on_notice: Callable[[Notice], None],
               allow: AllowList = AllowList()) -> list[SearchResult]:
    """Every query in parallel, results in query order. A query that fails alone is said; when all
    fail, the first error is raised. ``allow``: what an admin opened to the SSRF guard."""
    http = EngineHttp(verify=cfg.enable_web_loader_ssl_verification, trust_env=cfg.web_search_trust_env,
                      timeout_seconds=cfg.web_search_timeout_seconds, allow=allow)
    with engine_client(http) as client, ThreadPoolExecutor(max_workers=len(queries), thread_name_prefix="ragdesk-search") as pool:
        futures = [pool.submit(search_one, cfg, q, client) for q in queries]
        outcomes: list[list[SearchResult] | CoreError] = []
        for future in futures:
            try:
                outcomes.append(future.result())
            except CoreError as exc:
                outcomes.append(exc)
    errors = [o for o in outcomes if isinstance(o, CoreError)]
    if errors and len(errors) == len(outcomes):
        raise errors[0]
    for q, o in zip(queries, outcomes):
        if isinstance(o, CoreError):
            on_notice(notice("web.query_failed", query=q, error=o.message))
    return [r for o in outcomes if not isinstance(o, CoreError) for r in o]


def _documents(req: WebSearchRequest, results: list[SearchResult]) -> list[WebDocument]:
    cfg = req.settings
    if cfg.bypass_web_search_web_loader:
        return [WebDocument(r.link, r.title or r.link, _snippet_doc(r)) for r in results if r.snippet.strip()]
    loaded, failures = load_pages([r.link for r in results], req.parsing,
                                  verify=cfg.enable_web_loader_ssl_verification,
                                  concurrency=cfg.web_search_concurrent_requests)
    for f in failures:
        req.on_notice(notice("web.refused" if f.blocked else "web.skipped", url=f.url, reason=f.reason))
    titles = {r.link: r.title for r in results}
    return [WebDocument(p.url, p.doc.title or titles.get(p.url) or p.url, p.doc) for p in loaded]


def _snippet_doc(r: SearchResult) -> ParsedDoc:
    return ParsedDoc(source_name=r.link, mime="text/plain", parts=[DocPart(r.snippet.strip())], title=r.title or None)
