"""Strict mode: answers from the question's knowledge bases and nothing else.

It receives ``KnowledgeAccess`` alone (no URL fetch, no chat files, no context provider) and
the scope decided before anything was searched. No hit gives the fixed reply and no model is
called; a hit sends exactly one system message (the passages and the "answer only from these"
rules) immediately before the user message, offers no tool but a knowledge-base search of that
same scope, and injects nothing else (no history, no other context, no fallback).

A hit is not yet an answer: when ``strict.rag_strict_term_check`` is on (opt-in), every key
term of the question must occur in the passages that passed (``coverage.py``). A near miss — a
question in the knowledge base's vocabulary naming something it never mentions — gets the fixed
reply too, with no model call, and a notice naming the missing terms. A best passage scoring at
least ``strict.rag_strict_term_excuse_score`` excuses missing words (the question is about it,
worded otherwise), never a missing number; with ``strict.rag_strict_excuse_relation_words`` (on)
a missing relation word (an English verb or adjective, a Chinese function word) is excused at any
score, a missing noun, name or number is not (``word_class.py``).
"""

from __future__ import annotations

from core.answering.context import KnowledgeAccess
from core.answering.coverage import coverage, unexcused
from core.answering.generate import generate
from core.answering.prompts import number, strict_messages
from core.answering.replies import language, no_hit_reply, uncovered_text
from core.answering.run import AnswerRun
from core.answering.scope import Scope
from core.answering.steps import extractive, fit, model_for, report_found, search_step
from core.answering.tools import STRICT_TOOLS, ToolBox
from core.llm.providers import quotes_only


_NOT_MENTIONED = {
    "en": "strict mode: the passages found do not mention {terms}, so the question is not answered from them",
    "zh": "严格模式：检索到的内容未提及「{terms}」，因此不据此作答",
}


def answer_strict(knowledge: KnowledgeAccess, scope: Scope, run: AnswerRun, query: str) -> None:
    settings = knowledge.settings
    s = settings.strict
    found = search_step(run, knowledge, query, scope.targets(), file_ids=scope.file_ids,
                        top_k=s.rag_strict_max_results, min_score=s.rag_strict_min_similarity)
    items = found.items
    if items and s.rag_strict_term_check:
        cover = coverage(query, [f"{i.source}\n{' / '.join(i.heading_path)}\n{i.text}" for i in items])
        missing = unexcused(cover, max(i.score for i in items), s.rag_strict_term_excuse_score,
                            s.rag_strict_excuse_relation_words)
        if missing:
            run.notice(_NOT_MENTIONED[language(run.answer.question)].format(terms=", ".join(missing)))
            items = []
    report_found(run, items)
    if not items:
        run.answer.text = no_hit_reply(s, run.answer.question)  # the hard guarantee: no model is called
        return
    run.answer.hit = True
    model = model_for(settings, run, injecting=True)
    uncovered = uncovered_text(s, run.answer.question)
    if quotes_only(model):
        extractive(run, model, query, number(items), uncovered)
        return
    items = fit(run, model, items, strict_messages(run.answer.question, [], uncovered))
    prompt = strict_messages(run.answer.question, items, uncovered)
    run.injected = items
    tools = STRICT_TOOLS if settings.answering.builtin_tools else None
    box = ToolBox(knowledge, scope.targets(), scope.file_ids, s.rag_strict_max_results, s.rag_strict_min_similarity,
                  next_n=len(items) + 1, allowed=list(STRICT_TOOLS), fixed_scope=True)
    run.answer.text = generate(run, model, prompt.messages, tools, box, settings.answering.max_tool_rounds)
    run.cite(items + box.cited)
