"""Search and answering: the retrieval test, questions in either mode, the strict A/B compare."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core import knowledge
from core.accounts.access import resolve_kb
from core.answering import cli_text
from core.answering.questions import BatchItem
from core.answering.report import ScoredBatch, scored_batch
from core.answering.types import Answer, AnswerEvent, Comparison
from core.assistants import preset
from core.services.outputs import AnswerOut, SearchOut
from core.errors import InvalidInput, error_named
from core.ingest.parts import Snapshot
from core.limits import check_min_score, check_query_text, check_question, check_search, check_top_k
from core.llm.factory import provider_for
from core.metadata.store import resolve_where
from core.metadata.where import CLI_HELP, from_cli, mentioned
from core.notices import Notice
from core.retrieval import search as search_mod
from core.retrieval.search import SearchHit, SearchResult
from core.settings.model import Settings
from core.services.cli_groups import ASK_HELP, COMPARE_HELP, SEARCH_HELP
from core.services.declare import Arg, Cli, Http, operation
from core.services.files import readable_file
from core.services.runtime import Runtime
from core.types import Actor


TAG = "search and answers"
KBS_HELP = "ids or names; omitted: every knowledge base you may read"
MAX_KBS = 100  # knowledge bases named in one question or search
ANSWER_FIELDS = ("question", "kbs", "mode", "web", "where")
WHERE_HELP = ("metadata filter: {field: value}, a list for any of, {\"gte\": .., \"lt\": ..} for a number or "
              "date range; every field must match (core/metadata/where.py). Strict mode: no hit inside it, the fixed reply")


def failed_answer(answer: Answer):
    """The error a failed answer met (its kind: a store that cannot be reached, a model that is
    down...), to raise at the HTTP API: a status and a code there, never 200 with an empty text
    or the error passed off as the assistant's answer."""
    return error_named(answer.error_kind or "CoreError", answer.error)


def _answered(asked: dict, answer: Answer) -> Answer:
    if answer.error:
        raise failed_answer(answer)
    return answer


class SearchReport(BaseModel):
    """What ``python -m core search`` prints: every field of each hit (its channels' raw scores, the
    collection), the stages' timings and the notices."""

    model_config = ConfigDict(from_attributes=True)
    query: str
    mode: str
    hits: list[SearchHit]
    timings_ms: dict[str, float]
    notices: list[str]


def search_text(report: dict) -> str:
    """``search`` without --json: a line per hit (rank, score, source, page, the text's start), the notices."""
    lines = [f"{i}. [{h['score']:.3f}] {h['source_name']} {h.get('page') or ''} — {h['text'][:160].replace(chr(10), ' ')}"
             for i, h in enumerate(report["hits"], 1)]
    return "\n".join(lines + report["notices"]) or "no results above the threshold"


class AnswerService:
    def __init__(self, rt: Runtime):
        self._rt = rt
        self._context_providers: list = []  # normal-mode extra context sources (web search)

    @operation()
    def search_targets(self, actor: Actor, kbs: list[str] | None = None) -> list[search_mod.SearchTarget]:
        with self._rt.db.read() as s:
            chosen = [resolve_kb(s, actor, ref) for ref in kbs] if kbs else knowledge.list_kbs(self._rt.db, actor)
        return [search_mod.SearchTarget(kb.collection, kb.embedder_id, kb.name, kb.id, kb.sparse_encoder)
                for kb in chosen if kb.collection]

    @operation(handoff=True, http=Http("POST", "/api/v1/search", params=("query", "kbs", "mode", "top_k", "min_score", "where"),
                                       out=SearchOut, tag=TAG, example={"query": "remote work"}, pool="answer",
                                       mcp="search",
                                       summary="Hybrid search over the knowledge bases you may read (the retrieval test)"),
               cli=Cli("search", help=SEARCH_HELP, out=SearchReport, human=search_text,
                       params=("query", "kbs", "mode", "top_k", "min_score", "where"),
                       args={"query": Arg(check=check_query_text),
                             "kbs": Arg(flag="--kb", help="knowledge base (repeatable; default: all you can read)"),
                             "top_k": Arg(check=check_top_k), "min_score": Arg(check=check_min_score),
                             "where": Arg(repeat=True, metavar="FIELD=VALUE", parse=from_cli, help=CLI_HELP)}))
    def search(self, actor: Actor, query: Annotated[str, Field(min_length=1)],
               kbs: Annotated[list[str] | None, Field(description=KBS_HELP, max_length=MAX_KBS)] = None, *,
               mode: Literal["dense", "bm25", "hybrid", "hybrid+rerank"] | None = None,
               top_k: Annotated[int | None, Field(ge=1)] = None,
               min_score: Annotated[float | None, Field(ge=0, le=1)] = None,
               file_ids: tuple[str, ...] = (),
               where: Annotated[dict[str, Any] | None, Field(description=WHERE_HELP)] = None) -> SearchResult:
        """The retrieval test: the same search function answering uses, on one settings snapshot."""
        snap = self._rt.snapshot()
        check_search(query, top_k, min_score, snap.settings)
        for file_id in file_ids:
            readable_file(self._rt, actor, file_id)
        targets = self.search_targets(actor, kbs)
        scoped = resolve_where(self._rt.db, actor, where, [t.kb_id for t in targets if t.kb_id])
        searcher = replace(self._rt.searcher(snap), where=scoped)
        return searcher(query, targets, mode=mode, top_k=top_k, min_score=min_score, file_ids=tuple(file_ids))

    # web: the normal side may search the web; strict answering never does (the engine decides)
    @operation(handoff=True, http=(
        Http("POST", "/api/v1/ask", params=ANSWER_FIELDS, fixed={"temporary": True}, out=AnswerOut, tag=TAG,
             pool="answer", reply=_answered,
             example={"question": "How many days may I work remotely?"},
             summary="Answer a question from the knowledge bases, with its citations; nothing is stored. Strict "
                     "mode holds as in the chat: with it on, only admins get a normal answer; a question without "
                     "a hit gets the fixed reply and no model is called"),
        # the same answer as server-sent events (core/api/event_stream.py); the MCP ask tool, whose
        # progress notifications carry the text as it is written
        Http("POST", "/api/v1/ask/stream", name="ask_stream", params=ANSWER_FIELDS, fixed={"temporary": True},
             out=AnswerOut, tag=TAG, pool="answer", reply=_answered, events=True, mcp="ask",
             example={"question": "How many days may I work remotely?"},
             summary="The answer of /api/v1/ask as server-sent events: each step and piece of text as it happens, "
                     "the answer last. Strict mode checks a model's text before any of it is sent, and a refusal "
                     "is the fixed reply (from_kb false) with no model call"),
        Http("POST", "/api/v1/chats/{chat_id}/messages", name="chat_ask", params=(*ANSWER_FIELDS, "chat_id"),
             out=AnswerOut, tag="chats", example={"question": "How many days may I work remotely?"}, pool="answer",
             reply=_answered,
             summary="Ask in a chat: the question and its answer are stored in it (normal mode reads its history)")),
        # python -m core ask: nothing stored unless --chat continues a saved chat (temporary implied)
        cli=Cli("ask", help=ASK_HELP, description="", args=cli_text.ASK,
                params=("question", "kbs", "mode", "chat_id", "web", "assistant", "where"),
                implied={"temporary": lambda typed: typed["chat_id"] is None}, check=cli_text.assistant_alone,
                out=cli_text.AnswerReport, human=cli_text.answer_text, exit=lambda printed: 1 if printed["error"] else 0))
    def ask(self, actor: Actor, question: Annotated[str, Field(min_length=1)], *,
            kbs: Annotated[list[str] | None, Field(description=KBS_HELP, max_length=MAX_KBS)] = None,
            mode: Annotated[Literal["normal", "strict"] | None, Field(
                description="omitted: the mode in force; with strict mode on, only admins get a normal answer")] = None,
            chat_id: str | None = None,
            temporary: bool = False, file_ids: tuple[str, ...] = (),
            on_event: Callable[[AnswerEvent], None] | None = None,
            web: Annotated[bool, Field(description="the chat's Web search switch (normal mode only, when enabled)")] = False,
            assistant: Annotated[str | None, Field(description="an assistant's id or name: its preset answers")] = None,
            history: tuple[tuple[str, str], ...] = (),
            where: Annotated[dict[str, Any] | None, Field(description=WHERE_HELP)] = None) -> Answer:
        """Answer in the mode in force (or ``mode``); events go to ``on_event`` as they happen.
        One context per question: one settings and embedder snapshot, the actor's knowledge bases.
        ``web``: the chat's Web search switch (normal mode only; strict mode never searches).
        ``assistant``: answer with its preset (core/assistants/preset.py): its knowledge bases (the
        caller's share of them), mode, thresholds, top-k, prompt, refusal text and filter, so
        ``kbs``, ``mode`` and ``where`` are not given with it.
        ``history``: (role, text) turns before a temporary question, e.g. an API client's messages:
        normal mode reads them as a saved chat's history (follow-ups are searched with them);
        strict mode does not use them and says so.
        ``where``: a metadata filter, part of the scope in both modes (search, whole documents; no
        curated answer, which has no metadata)."""
        if assistant is None:
            return self.ask_tuned(actor, question, kbs=kbs, chat_id=chat_id, mode=mode, temporary=temporary,
                                  file_ids=file_ids, on_event=on_event, web=web, history=history, where=where)
        if kbs is not None or mode is not None or where is not None:
            raise InvalidInput("an assistant sets the knowledge bases, the mode and the metadata filter: "
                               "give none of them with it")
        t = preset.tuning(self._rt.db, actor, assistant)
        return self.ask_tuned(actor, question, kbs=t.kb_ids, chat_id=chat_id, mode=t.mode, temporary=temporary,
                              file_ids=file_ids, on_event=on_event, web=web, history=history, where=t.where,
                              tune=t.tune, confine=True, said=t.said)

    def ask_tuned(self, actor: Actor, question: str, *, kbs: list[str] | None = None, chat_id: str | None = None,
                  mode: str | None = None, temporary: bool = False, file_ids: tuple = (),
                  on_event: Callable[[AnswerEvent], None] | None = None, web: bool = False,
                  history: tuple[tuple[str, str], ...] = (), where: dict[str, Any] | None = None,
                  tune: Callable[[Settings], Settings] | None = None, confine: bool = False,
                  said: tuple[Notice, ...] = ()) -> Answer:
        """``ask`` with the snapshot's settings changed by ``tune`` for this answer only (an
        assistant's preset, core/assistants/); the mode policy still reads the tuned settings'
        global strict switch, which a preset never changes. ``confine``: the answer sees only
        ``kbs`` (a #mention of another knowledge base is not reached; ``[]``: none at all). ``said``:
        notices about the scope, said first in the answer."""
        from core.answering.service import ask

        started = time.perf_counter()
        where = mentioned(question, where, self._names(actor, kbs, confine))  # #office=Lisbon: part of the filter
        ctx, kb_ids = self._answer_context(actor, kbs, file_ids, web=web, where=where, tune=tune, confine=confine)
        check_question(question, ctx.settings)
        return ask(ctx, question, kb_ids=kb_ids, chat_id=chat_id, mode=mode, temporary=temporary,
                   file_ids=tuple(file_ids), on_event=on_event, started=started,
                   history=tuple((str(role), str(text)) for role, text in history), said=said)

    def _names(self, actor: Actor, kbs: list[str] | None, confine: bool) -> Callable[[], frozenset[str]]:
        """The knowledge-base and file names a #mention may mean in this answer (a name wins over a
        filter reading: ``#a=b.md`` is that file), read only when a mention looks like a filter."""
        from core.answer_context import reference_names

        def names() -> frozenset[str]:
            only = None
            if confine and kbs is not None:
                with self._rt.db.read() as s:
                    only = tuple(resolve_kb(s, actor, ref).id for ref in kbs)
            return reference_names(self._rt.parts, actor, only)

        return names

    def _answer_context(self, actor: Actor, kbs: list[str] | None, file_ids: tuple = (), web: bool = False,
                        where: dict[str, Any] | None = None,
                        tune: Callable[[Settings], Settings] | None = None, confine: bool = False):
        from core.answer_context import answer_context

        snap = self._rt.snapshot()
        if tune is not None:
            snap = replace(snap, settings=tune(snap.settings))
        with self._rt.db.read() as s:
            kb_ids = [resolve_kb(s, actor, ref).id for ref in kbs] if kbs else None
        if confine and kbs == []:  # an assistant's empty share for this caller: nothing to search, never all
            kb_ids = []
        for file_id in file_ids:
            readable_file(self._rt, actor, file_id)
        nothing = kb_ids == []  # no filter to resolve over no knowledge base
        searcher = replace(self._rt.searcher(snap), where=None if nothing else resolve_where(self._rt.db, actor, where))
        ctx = answer_context(self._rt.parts, snap, searcher, actor, tuple(self._context_providers),
                             only_kbs=tuple(kb_ids) if confine and kb_ids is not None else None)
        return (replace(ctx, open_web=self._web_opener(snap)) if web else ctx), kb_ids

    def _web_opener(self, snap: Snapshot):
        """Opens the message's web search (normal mode only: strict answering never receives it)."""
        from core.answering.models import chat_model
        from core.answering.web import open_session
        from core.websearch.index import indexer

        s, r = snap.settings, snap.settings.retrieval

        def open_web(run, query: str, earlier):
            model = None if provider_for(s.llm).quotes_only else chat_model(s.llm)
            reranker = self._rt.reranker(s) if r.mode == "hybrid+rerank" else None
            index = indexer(self._rt.parts, snap, top_k=r.rag_max_results, min_score=r.rag_min_similarity, reranker=reranker)
            return open_session(s, run, query, model=model, index_and_search=index, history=earlier)

        return open_web

    @operation(access="open", why="in-process wiring at start-up")
    def register_context_provider(self, provider) -> None:
        """Add a source of extra context items for normal-mode answers (``answering.context.
        ContextProvider``). Strict mode never calls one; it says it did not."""
        self._context_providers.append(provider)

    def _compare_one(self, actor: Actor, question: str, kbs: list[str] | None, web: bool = False,
                     where: dict[str, Any] | None = None,
                     tune: Callable[[Settings], Settings] | None = None, confine: bool = False,
                     said: tuple[Notice, ...] = ()) -> Comparison:
        """Both modes of one question from one context: the same snapshot, scope and search
        (``tune``, ``confine``: an assistant's preset, as in ``ask_tuned``)."""
        from core.answering.compare import compare
        from core.answering.policy import check_compare
        from core.answering.service import ask

        ctx, kb_ids = self._answer_context(actor, kbs, web=web, where=mentioned(question, where,
                                                                               self._names(actor, kbs, confine)),
                                           tune=tune, confine=confine)
        check_compare(actor, ctx.settings)  # the normal column: admins (and strict.compare_roles) only
        check_question(question, ctx.settings)
        return compare(lambda q, mode: ask(ctx, q, kb_ids=kb_ids, mode=mode, temporary=True, said=said), question)

    compare_tuned = _compare_one  # for the assistants' compare (core/services/assistants.py)

    @operation(handoff=True)
    def compare(self, actor: Actor, question: str, kbs: list[str] | None = None, web: bool = False,
                where: dict[str, Any] | None = None) -> Comparison:
        """Normal and strict side by side; with ``web`` the normal side may search the web, the
        strict side never does (it says so). ``where``: a metadata filter, for both sides."""
        return self._compare_one(actor, question, kbs, web=web, where=where)

    @operation(handoff=True, cli=Cli(
        "compare", help=COMPARE_HELP, description="", args=cli_text.COMPARE,
        check=cli_text.question_or_batch, out=list[cli_text.ComparedRow] | cli_text.ComparedRow,
        reply=cli_text.compared, human=cli_text.compared_text, note=cli_text.batch_summary,
        output=("--report",), output_text=cli_text.report_html, output_metavar="FILE.html",
        output_help="also write the A/B page's HTML report (self-contained, no scripts)"))
    def compare_scored(self, actor: Actor, question: str | None = None, *,
                       kbs: Annotated[list[str] | None, Field(description=KBS_HELP, max_length=MAX_KBS)] = None,
                       batch: list[BatchItem] | None = None, web: bool = False,
                       where: dict[str, Any] | None = None) -> ScoredBatch:
        """Normal and strict side by side for one ``question`` or a ``batch`` (each question with its
        expected answer, None: not given, "-": not covered), scored (core/answering/scoring.py) and
        summarised per mode as the Strict A/B page does (core/answering/report.py)."""
        from core.answering.policy import check_compare

        check_compare(actor, self._rt.settings())  # refused before any question, as compare_batch is
        if (question is None) == (batch is None):
            raise InvalidInput("give one question or a batch of them")
        items = [BatchItem(question)] if batch is None else batch
        if not items:
            raise InvalidInput("the batch holds no question")
        compared = [self._compare_one(actor, item.question, kbs, web=web, where=where) for item in items]
        return scored_batch(compared, [item.expected for item in items])

    @operation()
    def compare_batch(self, actor: Actor, questions: list[str], kbs: list[str] | None = None,
                      web: bool = False, where: dict[str, Any] | None = None) -> list[Comparison]:
        from core.answering.policy import check_compare

        check_compare(actor, self._rt.settings())  # refused before any question, even an empty batch
        return [self._compare_one(actor, q, kbs, web=web, where=where) for q in questions if q.strip()]

    @operation()
    def may_compare(self, actor: Actor) -> bool:
        """May see normal-mode answers while strict mode is on: the Strict A/B page and its menu entry."""
        from core.answering.policy import may_compare

        return may_compare(actor, self._rt.settings())
