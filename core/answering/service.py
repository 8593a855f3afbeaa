"""Answering a question in normal or strict mode (the orchestration behind ``Engine.ask``).

Strict mode (``strict.rag_strict_mode``, read on every message, or ``mode="strict"``):
every message is retrieved for with the strict threshold and count; no hit gives the fixed
reply and no model is called; a hit sends exactly one system message (the passages and the
"answer only from these" rules) immediately before the user message, offers no tool but
knowledge-base search, and injects nothing else (no history, no other context, no fallback).
Normal mode: the intent gate, the normal threshold, the RAG template, history, tools, and
the low-similarity action when nothing passes the threshold.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from core.answering import chats
from core.answering.attach import attach_url
from core.answering.budget import answer_reserve, fit_items, messages_tokens, trim_history
from core.answering.generate import generate
from core.answering.intent import skip_reason
from core.answering.models import chat_model
from core.answering.prompts import ContextItem, Prompt, normal_messages, number, passages, strict_messages
from core.answering.references import References, parse_references
from core.answering.retrieve import full_document_items, retrieve
from core.answering.run import AnswerRun, EventSink, citation, citation_dicts
from core.answering.tools import ALL_TOOLS, STRICT_TOOLS, ToolBox
from core.answering.types import Answer
from core.errors import CoreError, InvalidInput
from core.llm.base import ChatMessage, ChatModel
from core.llm.extractive import ExtractiveAnswerer
from core.llm.text_match import has_cjk
from core.settings.model import Settings
from core.types import Actor

if TYPE_CHECKING:
    from core.engine import Engine

log = logging.getLogger(__name__)

MODES = ("normal", "strict")
_TEXT = {
    "flagged": {"en": "Nothing in the knowledge base is relevant enough to answer this; the question has been flagged for a person to answer.",
                "zh": "知识库中没有足够相关的内容，此问题已标记，转交人工处理。"},
    "nothing": {"en": "Nothing relevant was found in the knowledge base, and no language model is configured to answer from general knowledge.",
                "zh": "知识库中没有找到相关内容；当前未配置语言模型，无法凭通用知识作答。"},
    "hello": {"en": "Hello! Ask me a question about your knowledge bases.", "zh": "你好！请直接提出与知识库相关的问题。"},
}


def _say(key: str, question: str) -> str:
    return _TEXT[key]["zh" if has_cjk(question) else "en"]


def resolve_mode(mode: str | None, settings: Settings) -> str:
    if mode is None:
        return "strict" if settings.strict.rag_strict_mode else "normal"
    if mode not in MODES:
        raise InvalidInput(f"mode must be normal or strict, not {mode!r}")
    return mode


def ask(engine: "Engine", actor: Actor, question: str, *, kbs: list[str] | None = None, chat_id: str | None = None,
        mode: str | None = None, temporary: bool = False, file_ids: tuple = (), on_event: EventSink | None = None) -> Answer:
    started = time.perf_counter()  # timings count from here, chat storage included
    settings = engine.settings()  # read per message: a saved switch applies at once
    mode = resolve_mode(mode, settings)
    question = (question or "").strip()
    if not question:
        raise InvalidInput("the question is empty")
    if temporary and chat_id:
        raise InvalidInput("a temporary chat stores nothing, so it cannot continue a saved chat")
    chat = None
    if not temporary:
        chat = chats.get_chat(engine.parts, actor, chat_id) if chat_id else chats.create_chat(engine.parts, actor, question)
    earlier = chats.history(engine.parts, chat.id) if chat is not None and mode == "normal" else []
    if chat is not None:
        chats.add_message(engine.parts, chat.id, "user", question, mode=mode)

    run = AnswerRun(question, mode, on_event, started=started)
    run.answer.chat_id = chat.id if chat else None
    scope = _Scope(engine, actor, settings, kbs or None, chat.id if chat else None, tuple(file_ids))
    try:
        refs = parse_references(engine, actor, question)
        scope.apply(refs, run)
        if mode == "strict":
            _strict(scope, run, refs)
        else:
            _normal(scope, run, refs, earlier)
    except CoreError as exc:  # a provider down or refusing, an embedding API down...: shown, never a traceback
        run.fail(exc.message)
    except Exception as exc:  # a library bug: the chat shows a clear line, the log keeps the traceback
        log.exception("unexpected error while answering")
        run.fail(f"unexpected error while answering ({type(exc).__name__}: {exc})")
    answer = run.finish()
    if chat is not None:
        msg = chats.add_message(
            # An error is the visible content of a failed answer (history() leaves it out of prompts).
            engine.parts, chat.id, "assistant", answer.text or answer.error, mode=mode, hit=answer.hit, llm_called=answer.llm_called,
            citations=citation_dicts(answer), timings=dict(answer.timings_ms), flagged=answer.flagged,
            retrieved=[{k: r[k] for k in ("chunk_id", "file_id", "score", "passed")} for r in answer.retrieved],
            notices=list(answer.notices), error=answer.error,
        )
        answer.message_id = msg.id
    return answer


class _Scope:
    """Where to look: knowledge bases, files, the chat's own collection."""

    def __init__(self, engine: "Engine", actor: Actor, settings: Settings, kbs, chat_id, file_ids):
        self.engine, self.actor, self.settings = engine, actor, settings
        self.kbs, self.chat_id, self.file_ids = kbs, chat_id, file_ids
        self.url_items: list[ContextItem] = []

    def apply(self, refs: References, run: AnswerRun) -> None:
        if refs.kbs:
            self.kbs = list(dict.fromkeys((self.kbs or []) + refs.kbs)) if self.kbs else refs.kbs
        if refs.file_ids:
            self.file_ids = tuple(dict.fromkeys(self.file_ids + tuple(refs.file_ids)))
        for url in refs.urls:
            self._add_url(url, run)

    def _add_url(self, url: str, run: AnswerRun) -> None:
        run.emit("notice", f"fetching {url}")
        if self.chat_id is None:
            # A temporary chat stores nothing: the page is used for this answer only, whole.
            from core.parsers.base import ParseContext
            from core.parsers.url import fetch_url

            try:
                doc = fetch_url(url, ParseContext(settings=self.settings.parsing))
            except CoreError as exc:  # this reference fails alone; the question is still answered
                run.notice(f"could not use {url}: {exc.message}")
                return
            self.url_items.append(ContextItem(text=doc.text, source=url, score=1.0, kind="document"))
            return
        result = attach_url(self.engine, self.actor, self.chat_id, url)
        if not result.ok:
            run.notice(f"could not use {url}: {result.error}")

    def retrieve(self, run: AnswerRun, query: str, top_k: int, min_score: float, whole_documents: bool):
        run.emit("retrieval_started", "searching the knowledge base")
        found = retrieve(self.engine, self.actor, query, kbs=self.kbs, chat_id=self.chat_id, top_k=top_k,
                         min_score=min_score, file_ids=self.file_ids)
        items = found.items
        if whole_documents:
            docs, doc_files = full_document_items(self.engine, self.actor, self.kbs, self.file_ids)
            items = docs + [i for i in items if i.file_id not in doc_files]
        run.answer.retrieved = found.scored
        run.answer.timings_ms["retrieval_ms"] = round(found.timings_ms.get("total", 0.0), 2)
        if "embed_query" in found.timings_ms:
            run.answer.timings_ms["embed_query_ms"] = round(found.timings_ms["embed_query"], 2)
        for n in found.notices:
            run.notice(n)
        if items:
            run.emit("sources_found", f"{len(items)} source(s) found", n=len(items))
        else:
            run.emit("no_hit", "nothing in the knowledge base passed the threshold", n=0)
        return items


def _model(settings: Settings, run: AnswerRun, injecting: bool) -> ChatModel:
    model = chat_model(settings.llm)
    if settings.llm.provider == "ollama":
        from core.llm.ollama_chat import needs_context_warning

        warning = needs_context_warning(settings.llm.context_length, injecting)
        if warning:
            run.notice(warning)
    return model


def _fit(run: AnswerRun, model: ChatModel, items: list[ContextItem], fixed: Prompt) -> list[ContextItem]:
    """Number the items that fit the model's context, most relevant first; say what was cut."""
    available = model.context_length - answer_reserve(model.context_length) - messages_tokens(fixed.messages, model.count_tokens)
    fitted = fit_items(items, available, model.count_tokens)
    if fitted.notice():
        run.notice(fitted.notice())
    return number(fitted.kept)


def _strict(scope: _Scope, run: AnswerRun, refs: References) -> None:
    s = scope.settings.strict
    if scope.url_items:
        run.notice("strict mode answers from the knowledge base only: the page fetched for this temporary chat is not used")
    items = scope.retrieve(run, refs.query, s.rag_strict_max_results, s.rag_strict_min_similarity, whole_documents=False)
    if not items:
        run.answer.text = s.rag_strict_no_hit_reply  # the hard guarantee: no model is called
        return
    run.answer.hit = True
    model = _model(scope.settings, run, injecting=True)
    if isinstance(model, ExtractiveAnswerer):
        _extractive(run, model, refs.query, number(items), s.rag_strict_uncovered_text)
        return
    items = _fit(run, model, items, strict_messages(run.answer.question, [], s.rag_strict_uncovered_text))
    prompt = strict_messages(run.answer.question, items, s.rag_strict_uncovered_text)
    run.injected = items
    tools = STRICT_TOOLS if scope.settings.answering.builtin_tools else None
    box = ToolBox(scope.engine, scope.actor, scope.kbs, scope.chat_id, s.rag_strict_max_results,
                  s.rag_strict_min_similarity, next_n=len(items) + 1, allowed=list(STRICT_TOOLS))
    run.answer.text = generate(run, model, prompt.messages, tools, box, scope.settings.answering.max_tool_rounds)
    run.cite(items + box.cited)


def _normal(scope: _Scope, run: AnswerRun, refs: References, earlier: list[ChatMessage]) -> None:
    a, r = scope.settings.answering, scope.settings.retrieval
    question = run.answer.question
    items: list[ContextItem] = list(scope.url_items)
    retrieved = gated = False
    if not a.file_context:
        run.emit("notice", "file context is off: nothing is injected" + (" (the model may use tools)" if a.builtin_tools else ""))
    elif (reason := skip_reason(question)) and not refs.any:
        run.emit("notice", f"retrieval skipped: {reason}", skipped=reason)
        gated = True
    else:
        items += scope.retrieve(run, refs.query, r.rag_max_results, r.rag_min_similarity, whole_documents=True)
        retrieved = True
    run.answer.hit = bool(items)
    if retrieved and not items:
        if a.low_similarity_action == "flag_for_human":
            run.answer.flagged, run.answer.from_kb = True, False
            run.answer.text = _say("flagged", question)
            run.notice("flagged for a human: nothing passed the similarity threshold")
            return
    model = _model(scope.settings, run, injecting=bool(items))
    if isinstance(model, ExtractiveAnswerer):
        if items:
            _extractive(run, model, refs.query, number(items), None)
        else:
            run.answer.from_kb = False
            run.answer.text = _say("hello" if gated else "nothing", question)
        return
    if not items:
        run.answer.from_kb = False
    if retrieved and not items:
        run.notice(a.not_from_kb_marker)
    template_only = normal_messages(question, [], [], template=a.rag_template, system_context=a.rag_system_context)
    fixed_tokens = messages_tokens(template_only.messages, model.count_tokens)
    history = trim_history(earlier, max(0, (model.context_length - fixed_tokens) // 4), model.count_tokens)
    if items:
        with_template = normal_messages(question, [ContextItem("", "")], history, template=a.rag_template,
                                        system_context=a.rag_system_context)
        items = _fit(run, model, items, with_template)
    run.injected = items
    prompt = normal_messages(question, items, history, template=a.rag_template, system_context=a.rag_system_context)
    tools = ALL_TOOLS if a.builtin_tools else None
    box = ToolBox(scope.engine, scope.actor, scope.kbs, scope.chat_id, r.rag_max_results, r.rag_min_similarity,
                  next_n=len(items) + 1)
    text = generate(run, model, prompt.messages, tools, box, a.max_tool_rounds)
    run.answer.text = f"{a.not_from_kb_marker}\n\n{text}" if retrieved and not items else text
    run.cite(items + box.cited)


def _extractive(run: AnswerRun, model: ExtractiveAnswerer, question: str, items: list[ContextItem],
                uncovered: str | None) -> None:
    """The offline answerer quotes the passages; it is not a language model (llm_called stays False)."""
    run.injected = items
    run.emit("generating", "quoting the knowledge base (no language model configured)")
    result = model.answer(question, passages(items), uncovered)
    run.answer.text = result.text
    run.mark("first_token_ms")
    run.emit("text", result.text)
    by_n = {i.n: i for i in items}
    # The quotes are cited [1], [2]... in the order they appear; result.citations maps them back.
    run.answer.citations = [replace(citation(by_n[n]), n=k) for k, n in enumerate(result.citations, 1)]
