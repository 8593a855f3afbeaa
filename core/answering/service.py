"""Answering a question in normal or strict mode (the orchestration behind ``Engine.ask``).

The engine builds one ``AnswerContext`` per question (settings snapshot, readable knowledge
bases, the search function, file reader, chat store, chat files, URL fetch, context
providers); nothing here touches the engine. The mode is read from that snapshot (or given),
then the scope is decided once from the selection and the message's ``#mentions`` — before
anything is fetched or searched. Strict mode (``strict.py``) gets the knowledge bases alone and
says what it left out (URLs, the chat's files, web search); normal mode (``normal.py``) uses them.
"""

from __future__ import annotations

import logging
import time

from core.answering.context import AnswerContext
from core.answering.curated import try_curated
from core.answering.normal import answer_normal
from core.answering.policy import answer_mode
from core.answering.references import References, parse_references
from core.answering.replies import ask_back_text, no_hit_reply, strict_notice
from core.answering.run import AnswerRun, EventSink, citation_dicts
from core.answering.scope import decide_scope
from core.answering.strict import answer_strict
from core.answering.types import Answer
from core.error_report import shown_error
from core.errors import CoreError, InvalidInput
from core.llm.base import ChatMessage
from core.notices import NOTICES, Notice, notice

log = logging.getLogger(__name__)


# Earlier turns a caller sends with a temporary question (the OpenAI-compatible API's messages):
# the last ones only; the prompt's token budget trims further (budget.trim_history).
MAX_SENT_HISTORY = 40
STRICT_HISTORY_NOTICE = NOTICES["strict.history"]["en"]


def ask(ctx: AnswerContext, question: str, *, kb_ids: list[str] | None = None, chat_id: str | None = None,
        mode: str | None = None, temporary: bool = False, file_ids: tuple = (), on_event: EventSink | None = None,
        started: float | None = None, history: tuple[tuple[str, str], ...] = (), said: tuple[Notice, ...] = ()) -> Answer:
    """``said``: notices the caller has about this answer's scope (an assistant's knowledge bases left
    out), said first: streamed and stored with the answer like its own."""
    started = time.perf_counter() if started is None else started  # timings count from here, chat storage included
    mode, refused = answer_mode(mode, ctx.actor, ctx.settings)  # strict on: strict for all but admins
    question = (question or "").strip()
    if not question:
        raise InvalidInput("the question is empty")
    if temporary and chat_id:
        raise InvalidInput("a temporary chat stores nothing, so it cannot continue a saved chat")
    if history and not temporary:  # refused before a chat is made or written to
        raise InvalidInput("a saved chat has its own history: send earlier messages only with a temporary question")
    chat = None
    if not temporary:
        chat = ctx.chats.get(chat_id) if chat_id else ctx.chats.create(question)
    earlier = ctx.chats.history(chat.id) if chat is not None and mode == "normal" else []
    if history and mode == "normal":
        earlier = sent_history(history)
    if chat is not None:
        ctx.chats.add(chat.id, "user", question, mode=mode)

    run = AnswerRun(question, mode, on_event, started=started)
    run.answer.chat_id = chat.id if chat else None
    if refused:
        run.notice(refused)
    for message in said:
        run.notice(message)
    if history and mode == "strict":
        run.notice(notice("strict.history"))
    try:
        refs = parse_references(ctx.knowledge, question)
        scope = decide_scope(ctx.knowledge, kb_ids, tuple(file_ids), refs)
        for said in refs.notices:
            run.notice(said)
        if refs.questions and mode == "strict":
            _strict_does_not_ask_back(ctx, run, refs)
        elif refs.questions:
            _ask_back(run, refs)
        elif mode == "strict":
            _say_what_strict_leaves_out(ctx, run, refs, run.answer.chat_id)
            if not try_curated(ctx.knowledge, scope, run, refs.query):  # approved answers first (core/curated/)
                answer_strict(ctx.knowledge, scope, run, refs.query)
        elif not try_curated(ctx.knowledge, scope, run, refs.query):
            answer_normal(ctx, scope, run, refs, earlier, run.answer.chat_id)
    except Exception as exc:  # a provider down, a library bug: a plain sentence and an error id; the log has the rest
        run.fail(shown_error(exc, ctx.actor, "answering"),
                 kind=type(exc).__name__ if isinstance(exc, CoreError) else "")
    answer = run.finish()
    ctx.link_citations(answer.citations)  # a Drive file's citation links back to it
    if chat is not None:
        msg = ctx.chats.add(
            # An error is the visible content of a failed answer (history() leaves it out of prompts).
            chat.id, "assistant", answer.text or answer.error, mode=mode, hit=answer.hit, llm_called=answer.llm_called,
            citations=citation_dicts(answer), timings=dict(answer.timings_ms), flagged=answer.flagged,
            retrieved=[{k: r[k] for k in ("chunk_id", "file_id", "score", "passed")} for r in answer.retrieved],
            notices=list(answer.notices), error=answer.error,
        )
        answer.message_id = msg.id
    return answer


def sent_history(history: tuple[tuple[str, str], ...]) -> list[ChatMessage]:
    """The conversation a caller sent, as prompt history: user and assistant turns with text (a
    caller's system or tool messages are not used: the prompt is the admin's template)."""
    turns = [ChatMessage(role, content) for role, content in history
             if role in ("user", "assistant") and content.strip()]
    return turns[-MAX_SENT_HISTORY:]


def _ask_back(run: AnswerRun, refs: References) -> None:
    """A mention that names several knowledge bases or files, or none (a likely typo): nothing
    is searched and no model is called; the answer asks which one was meant, in the question's
    language."""
    for q in refs.questions:
        run.notice(q.text(run.lang))
    run.answer.from_kb = False
    run.answer.text = ask_back_text(refs.questions, run.answer.question)


def _strict_does_not_ask_back(ctx: AnswerContext, run: AnswerRun, refs: References) -> None:
    """The same unclear mention in strict mode: the fixed reply (no search, so no other knowledge
    base answers in its place; no model), and the close names in a notice."""
    for q in refs.questions:
        run.notice(strict_notice(q, run.lang))
    run.answer.from_kb = False
    run.answer.text = no_hit_reply(ctx.settings.strict, run.answer.question)


def _say_what_strict_leaves_out(ctx: AnswerContext, run: AnswerRun, refs: References, chat_id: str | None) -> None:
    """Strict mode answers from the knowledge base only: what the message or chat offered beyond
    it is named, not used (no page is fetched, no chat file or provider is searched)."""
    for url in refs.urls:
        run.notice(notice("strict.url", url=url))
    if chat_id is not None and ctx.chat_files.origins(chat_id):
        run.notice(notice("strict.chat_files"))
    for provider in ctx.providers:
        run.notice(notice("strict.provider", provider=provider.name))
    if ctx.open_web is not None:  # the chat's Web search switch: never searched, no query generated
        run.notice(notice("strict.web"))
