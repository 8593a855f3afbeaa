"""Normal mode: the intent gate, the normal threshold, the RAG template, history, tools, the
low-similarity action when nothing passes the threshold, and every source of context.

``gather`` is the one place context items are collected: fetched pages (``#https://…``), the
chat's own files, the knowledge-base search of the scope, whole documents, and the context
providers (web search). Strict mode never runs it.
"""

from __future__ import annotations

from core.answering.answerable import best_evidence, judge, passage_text
from core.answering.budget import messages_tokens, trim_history
from core.answering.confidence import match_strength, weak_notice
from core.answering.context import AnswerContext
from core.answering.coverage import HAN_RUN
from core.answering.followup import SearchQuery, search_query
from core.answering.models import chat_model
from core.answering.generate import generate
from core.answering.intent import skip_reason
from core.answering.prompts import ContextItem, normal_messages, number
from core.answering.reading import read_question
from core.answering.references import References
from core.answering.replies import not_from_kb_marker
from core.answering.retrieve import document_item
from core.answering.run import AnswerRun
from core.answering.scope import Scope
from core.answering.steps import extractive, fit, model_for, report_found, search_step
from core.answering.tools import ALL_TOOLS, ToolBox
from core.errors import CoreError
from core.llm.base import ChatMessage, TextDelta
from core.llm.providers import quotes_only
from core.llm.text_match import has_cjk
from core.notices import notice
from core.settings.model import AnsweringSettings

# A chat attachment up to this size is injected whole, as the conversation's own material (a
# table, a short note): its few chunks would otherwise compete, in a collection of their own,
# against whole knowledge bases on scores calibrated for those. Larger ones are retrieved.
ATTACHMENT_WHOLE_CHARS = 8_000

_TEXT = {
    "flagged": {"en": "Nothing in the knowledge base is relevant enough to answer this; the question has been flagged for a person to answer.",
                "zh": "知识库中没有足够相关的内容，此问题已标记，转交人工处理。"},
    "nothing": {"en": "Nothing relevant was found in the knowledge base, and no language model is configured to answer from general knowledge.",
                "zh": "知识库中没有找到相关内容；当前未配置语言模型，无法凭通用知识作答。"},
    "hello": {"en": "Hello! Ask me a question about your knowledge bases.", "zh": "你好！请直接提出与知识库相关的问题。"},
}


def _say(key: str, question: str) -> str:
    return _TEXT[key]["zh" if has_cjk(question) else "en"]


def fetch_urls(ctx: AnswerContext, chat_id: str | None, urls: list[str], run: AnswerRun) -> list[ContextItem]:
    """Saved chat: each page is indexed into the chat's collection (searched below and later).
    Temporary chat: each page is used whole for this answer only. A failed fetch fails alone."""
    items: list[ContextItem] = []
    for url in urls:
        run.emit("notice", notice("url.fetching", url=url).text(run.lang))
        if chat_id is None:
            try:
                doc = ctx.fetch_url(url)
            except CoreError as exc:
                run.notice(notice("url.unusable", url=url, error=exc.message))
                continue
            items.append(ContextItem(text=doc.text, source=url, score=1.0, kind="document", origin="url"))
            continue
        result = ctx.chat_files.attach_url(chat_id, url)
        if not result.ok:
            run.notice(notice("url.unusable", url=url, error=result.error))
    return items


def _urls_to_fetch(a: AnsweringSettings, chat_id: str | None, urls: list[str], run: AnswerRun) -> list[str]:
    """File Context off injects nothing: a page is fetched only when something can use it, i.e.
    a saved chat whose tools search the chat's collection. A temporary chat's page would only be
    injected, so it is not fetched."""
    if a.file_context or (chat_id is not None and a.builtin_tools):
        return urls
    for url in urls:
        run.notice(notice("url.file_context_off", url=url))
    return []


def follow_up_query(ctx: AnswerContext, run: AnswerRun, refs: References, earlier: list[ChatMessage]) -> str:
    """The search query: the message, or for a follow-up one built with the conversation
    (followup.py): by the chat model when one is configured, else by rule."""
    if not ctx.settings.answering.follow_up_search or not earlier:
        return refs.query
    model = chat_model(ctx.settings.llm)
    ask_model = None
    if not quotes_only(model):
        def ask_model(prompt: str) -> str:
            run.answer.llm_called = True
            return "".join(e.text for e in model.stream([ChatMessage("user", prompt)], None) if isinstance(e, TextDelta))
    found: SearchQuery = search_query(refs.query, earlier, ask_model, run.notice)
    if found.by != "message":
        run.emit("search_query", f"searched as: {found.text}", query=found.text, by=found.by)
    return found.text


def gather(ctx: AnswerContext, scope: Scope, run: AnswerRun, refs: References, chat_id: str | None,
           pages: list[ContextItem], query: str | None = None) -> list[ContextItem]:
    """Every context item of a normal answer, most relevant first. ``query``: what is searched
    (the follow-up with its context), the message's query when not given."""
    query = refs.query if query is None else query
    r = ctx.settings.retrieval
    targets, origins = scope.targets(), {}
    if chat_id is not None:
        chat_target, stale = ctx.chat_files.target(chat_id)
        if stale:
            run.notice(notice("chat.stale_files", names=", ".join(stale)))
        if chat_target is not None:
            targets.append(chat_target)
            origins = ctx.chat_files.origins(chat_id)
    found = search_step(run, ctx.knowledge, query, targets, file_ids=scope.file_ids,
                        top_k=r.rag_max_results, min_score=r.rag_min_similarity, origins=origins)
    docs = ctx.whole_documents(scope.kb_ids, scope.file_ids)
    if chat_id is not None and not scope.file_ids:
        docs += ctx.chat_files.documents(chat_id, ATTACHMENT_WHOLE_CHARS)
    whole = {d.file_id for d in docs}
    items = pages + [document_item(d) for d in docs] + [i for i in found.items if i.file_id not in whole]
    strength = match_strength(found.hits, r.rag_min_similarity)
    judged = judge(read_question(run.answer.question),
                   [passage_text(i.source, i.heading_path, i.text) for i in found.items],
                   [i.text for i in found.items]) if found.items and not pages and not docs else None
    # One channel alone carrying the best passage is a weak match, unless a passage answers the
    # question (a Chinese question's English answer is found by the words' translation and a
    # weaker vector: that is no weakness of the match).
    if strength.weak and not pages and not docs and not (judged and judged.answerable):
        run.answer.weak_match = True
        run.notice(weak_notice(run.answer.question, strength, r.rag_min_similarity))
    elif judged is not None and not judged.answerable and judged.missing:
        # A passage that scores well may still be about something else (interns where the handbook
        # speaks of employees): normal mode answers, and says what the passages do not mention.
        chinese = any(HAN_RUN.search(t) for t in judged.missing)
        run.answer.weak_match = True  # the badge does not say plainly "from the knowledge base"
        run.notice(notice("normal.not_mentioned", terms=("、" if chinese else ", ").join(judged.missing)))
    elif judged is not None and judged.unsaid:
        run.notice(notice("normal.unsaid", terms=judged.unsaid[0]))
    for provider in ctx.providers:  # extra sources (web search) join here, in normal mode only
        try:
            items += provider.items(query, ctx.settings)
        except CoreError as exc:
            run.notice(notice("provider.unused", provider=provider.name, error=exc.message))
    report_found(run, items)
    return items


def answering_sentence(query: str, items: list[ContextItem]) -> dict[int, str] | None:
    """The sentence or table row of a knowledge-base passage that answers the question, when one
    does (strict mode's judgement, ``answerable.py``): the offline answerer quotes it, across
    languages too, instead of what shares the most words."""
    chunks = [i for i in items if i.kind == "chunk" and i.origin == "kb"]
    if not chunks:
        return None
    question = read_question(query)
    judged = judge(question, [passage_text(i.source, i.heading_path, i.text) for i in chunks], [i.text for i in chunks])
    found = best_evidence(question, [i.text for i in chunks], judged.answering) if judged.answerable else None
    return {chunks[found.passage].n: found.text} if found else None


def answer_normal(ctx: AnswerContext, scope: Scope, run: AnswerRun, refs: References, earlier: list[ChatMessage],
                  chat_id: str | None) -> None:
    settings = ctx.settings
    a = settings.answering
    question = run.answer.question
    pages = fetch_urls(ctx, chat_id, _urls_to_fetch(a, chat_id, refs.urls, run), run)
    web = ctx.open_web(run, refs.query, earlier) if ctx.open_web is not None else None
    items: list[ContextItem] = list(pages)
    retrieved = gated = False
    query = refs.query
    if not a.file_context:
        off = "normal.nothing_injected_tools" if a.builtin_tools else "normal.nothing_injected"
        run.emit("notice", notice(off).text(run.lang))
    elif (reason := skip_reason(question)) and not refs.any:
        run.emit("notice", notice("normal.retrieval_skipped", reason=reason).text(run.lang), skipped=reason)
        gated = True
    else:
        query = follow_up_query(ctx, run, refs, earlier)
        items = gather(ctx, scope, run, refs, chat_id, pages, query)
        retrieved = True
    run.answer.hit = bool(items)
    if retrieved and web is not None:  # web passages answer, but are no knowledge-base hit
        items += web.context_items()
        run.answer.from_kb = run.answer.hit
    # Search down is not "nothing relevant": the question is answered, not flagged (seed 002); nor is
    # an empty scope (an assistant none of whose knowledge bases its caller may read): nothing was searched.
    if (retrieved and not items and a.low_similarity_action == "flag_for_human" and not run.search_unavailable
            and scope.kbs):
        run.answer.flagged, run.answer.from_kb = True, False
        run.answer.text = _say("flagged", question)
        run.notice(notice("normal.flagged"))
        return
    model = model_for(settings, run, injecting=bool(items), web=web is not None and web.may_inject)
    if quotes_only(model):
        if items:
            numbered = number(items)
            extractive(run, model, query, numbered, None, evidence=answering_sentence(query, numbered))
        else:
            run.answer.from_kb = False
            run.answer.text = _say("hello" if gated else "nothing", question)
        return
    if not items:
        run.answer.from_kb = False
    template_only = normal_messages(question, [], [], template=a.rag_template, system_context=a.rag_system_context)
    fixed_tokens = messages_tokens(template_only.messages, model.count_tokens)
    history = trim_history(earlier, max(0, (model.context_length - fixed_tokens) // 4), model.count_tokens)
    if items:
        with_template = normal_messages(question, [ContextItem("", "")], history, template=a.rag_template,
                                        system_context=a.rag_system_context)
        items = fit(run, model, items, with_template)
    run.injected = items
    prompt = normal_messages(question, items, history, template=a.rag_template, system_context=a.rag_system_context)
    tools = ALL_TOOLS + (web.tools() if web is not None else []) if a.builtin_tools else None
    box = _toolbox(ctx, scope, chat_id, next_n=len(items) + 1) if tools else None
    if box is not None and web is not None:
        box.allowed, box.web_search = list(tools), web.search_tool
    # said once, as the answer's first line (no notice repeats it beside the badge)
    marker = f"{not_from_kb_marker(a, question)}\n\n" if retrieved and not items else ""
    if marker:
        run.emit("text", marker)  # streamed first, so live text is the answer's from its first piece
    run.answer.text = marker + generate(run, model, prompt.messages, tools, box, a.max_tool_rounds)
    run.cite(items + (box.cited if box else []))


def _toolbox(ctx: AnswerContext, scope: Scope, chat_id: str | None, next_n: int) -> ToolBox:
    """Normal-mode tools search the same scope (the chat's files included) unless the model names
    other knowledge bases; they also read files and earlier chats."""
    r = ctx.settings.retrieval
    targets, origins = scope.targets(), {}
    if chat_id is not None:
        target, _ = ctx.chat_files.target(chat_id)
        if target is not None:
            targets.append(target)
            origins = ctx.chat_files.origins(chat_id)
    return ToolBox(ctx.knowledge, targets, scope.file_ids, r.rag_max_results, r.rag_min_similarity, next_n=next_n,
                   origins=origins, read_file=ctx.read_file, chats=ctx.chats)
