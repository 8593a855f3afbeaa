"""Steps both modes share: one search over the scope, the chat model, the context budget, the
offline extractive answerer."""

from __future__ import annotations

from dataclasses import replace

from core.answering.budget import answer_reserve, fit_items, messages_tokens
from core.answering.context import KnowledgeAccess
from core.answering.models import chat_model
from core.answering.prompts import ContextItem, Prompt, number, passages
from core.answering.retrieve import Retrieval, retrieve
from core.answering.run import AnswerRun, citation
from core.error_report import shown_error
from core.errors import EmbeddingError
from core.llm.base import ChatModel
from core.llm.extractive import ExtractiveAnswerer
from core.llm.factory import provider_for
from core.notices import notice
from core.retrieval.search import SearchTarget
from core.settings.model import Settings


def search_step(run: AnswerRun, knowledge: KnowledgeAccess, query: str, targets: list[SearchTarget], *,
                file_ids: tuple[str, ...], top_k: int, min_score: float,
                origins: dict[str, str] | None = None) -> Retrieval:
    """Search the scope once, record what was scored and how long it took."""
    run.emit("retrieval_started", "searching the knowledge base")
    try:
        found = retrieve(knowledge.search, query, targets, top_k=top_k, min_score=min_score, file_ids=file_ids,
                         origins=origins)
    except EmbeddingError as exc:  # the service is down (seed 002): answer without retrieval, say so
        run.search_unavailable = True
        run.notice(notice("search.unavailable", error=shown_error(exc, knowledge.actor, "searching")))
        return Retrieval([], [])
    run.answer.retrieved = found.scored
    run.answer.timings_ms["retrieval_ms"] = round(found.timings_ms.get("total", 0.0), 2)
    if "embed_query" in found.timings_ms:
        run.answer.timings_ms["embed_query_ms"] = round(found.timings_ms["embed_query"], 2)
    for n in found.notices:
        run.notice(n)
    return found


def report_found(run: AnswerRun, items: list[ContextItem]) -> None:
    if items:
        run.emit("sources_found", f"{len(items)} source(s) found", n=len(items))
    else:
        run.emit("no_hit", "nothing in the knowledge base passed the threshold", n=0)


def model_for(settings: Settings, run: AnswerRun, injecting: bool, web: bool = False) -> ChatModel:
    """``web``: web pages are (or through a tool may be) injected: pages run to thousands of tokens."""
    model = chat_model(settings.llm)
    if provider_for(settings.llm).small_default_context:
        from core.llm.ollama_chat import context_notice

        warning = context_notice(settings.llm.context_length, injecting or web, web=web)
        if warning:
            run.notice(warning)
    return model


def fit(run: AnswerRun, model: ChatModel, items: list[ContextItem], fixed: Prompt) -> list[ContextItem]:
    """Number the items that fit the model's context, most relevant first; say what was cut."""
    available = model.context_length - answer_reserve(model.context_length) - messages_tokens(fixed.messages, model.count_tokens)
    fitted = fit_items(items, available, model.count_tokens)
    if fitted.notice():
        run.notice(fitted.notice())
    return number(fitted.kept)


def extractive(run: AnswerRun, model: ExtractiveAnswerer, question: str, items: list[ContextItem],
               uncovered: str | None, evidence: dict[int, str] | None = None, lead: str | None = None) -> None:
    """The offline answerer quotes the passages; it is not a language model (llm_called stays False).
    ``evidence``: passage number -> the sentence or table row judged to answer (strict mode's
    judgement, ``answerable.py``): quoted instead of what word overlap would pick. ``lead``: the
    first line, when it is not "no language model is configured"."""
    run.injected = items
    run.emit("generating", "quoting the knowledge base")
    result = model.answer(question, passages(items), uncovered, evidence=evidence, lead=lead)
    run.answer.text = result.text
    run.mark("first_token_ms")
    run.emit("text", result.text)
    by_n = {i.n: i for i in items}
    # The quotes are cited [1], [2]... in the order they appear; result.citations maps them back.
    run.set_citations([replace(citation(by_n[n]), n=k) for k, n in enumerate(result.citations, 1)])
