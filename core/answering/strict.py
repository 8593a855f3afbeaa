"""Strict mode: answers from the question's knowledge bases and nothing else.

It receives ``KnowledgeAccess`` alone (no URL fetch, no chat files, no context provider) and
the scope decided before anything was searched. No hit gives the fixed reply and no model is
called; a hit sends exactly one system message (the passages and the "answer only from these"
rules) immediately before the user message, offers no tool but a knowledge-base search of that
same scope, and injects nothing else (no history, no other context, no fallback).

A hit is not yet an answer: with ``strict.rag_strict_term_check`` (on by default) the passages must
answer the question (``answerable.py``): one of them must mention every thing the question names —
as written, in other words of the same meaning or in the other language — and state the kind of
value asked for about it. A near miss (interns where the handbook speaks of employees) gets the
fixed reply too, with no model call, and a notice naming what the passages lack; the answering
passage goes first, and the offline answerer quotes the sentence or table row that answers.
"""

from __future__ import annotations

import logging

from core.answering.answerable import Judgement, best_evidence, judge, passage_text
from core.answering.context import KnowledgeAccess
from core.answering.coverage import HAN_RUN
from core.answering.generate import generate
from core.answering.model_judge import ModelJudgement, ask_model
from core.answering.prompts import ContextItem, number, strict_messages
from core.answering.reading import Question, read_question
from core.answering.replies import no_hit_reply, uncovered_text
from core.answering.run import AnswerRun
from core.answering.scope import Scope
from core.answering.steps import extractive, fit, model_for, report_found, search_step
from core.answering.tools import STRICT_TOOLS, ToolBox
from core.answering.verify import check_answer
from core.errors import CoreError
from core.llm.extractive import ExtractiveAnswerer
from core.llm.providers import quotes_only
from core.notices import Notice, notice
from core.settings.model import Settings

log = logging.getLogger(__name__)


def refusal_notice(judged: Judgement) -> Notice:
    """Why a hit is not an answer: what the nearest passage does not mention, or the value it
    does not state. The terms are the question's own words, in its language."""
    if judged.missing:
        chinese = any(HAN_RUN.search(t) for t in judged.missing)
        return notice("strict.not_mentioned", terms=("、" if chinese else ", ").join(judged.missing))
    kind = (judged.question.wanted if judged.question else None) or "quantity"
    return notice(f"strict.no_value.{kind}")


def unchecked_lead(question: str) -> str:
    """The first line of a quote shown instead of a model's answer that did not check out."""
    if HAN_RUN.search(question):
        return "语言模型的回答与检索到的内容不符，以下直接摘录知识库原文。"
    return "The language model's answer did not match the passages found, so this answer quotes the knowledge base."


def judged_text(item: ContextItem) -> str:
    """What a passage is judged on: its file name and heading path with its text."""
    return passage_text(item.source, item.heading_path, item.text)


def judged_with_section(items: list[ContextItem]) -> list[str]:
    """What each passage is judged on, read with the other passages found in its section (same
    file, same heading path): a section cut into chunks is one text, so a table's rows are read
    with the sentence above them that says what the table is of ("Hotels are booked …" over the
    rate per night). The value asked for must still be in the passage itself."""
    sections: dict[tuple, list[int]] = {}
    for n, item in enumerate(items):
        if item.heading_path:  # a file without headings is not one section
            sections.setdefault((item.file_id or item.source, tuple(item.heading_path)), []).append(n)
    out = []
    for n, item in enumerate(items):
        mates = sections.get((item.file_id or item.source, tuple(item.heading_path)), []) if item.heading_path else []
        text = "\n".join([item.text] + [items[m].text for m in mates if m != n])
        out.append(passage_text(item.source, item.heading_path, text))
    return out


def second_opinion(run: AnswerRun, settings: Settings, question: Question, items: list[ContextItem]) -> ModelJudgement | None:
    """The chat model's judgement of a word refusal (``model_judge.py``); None without a model that
    writes (the offline answerer only quotes) or when its reply does not hold up."""
    model = model_for(settings, run, injecting=True)
    if quotes_only(model):
        return None
    run.answer.llm_called = True
    run.emit("generating", f"asking {model.id} whether the passages answer", model=model.id)
    try:
        return ask_model(model, question, [i.text for i in items])
    except CoreError as exc:  # the model away or failing: the refusal stands, as without a second opinion
        log.warning("strict mode's second opinion failed, the refusal stands: %s", exc.message)
        return None


def answer_strict(knowledge: KnowledgeAccess, scope: Scope, run: AnswerRun, query: str) -> None:
    settings = knowledge.settings
    s = settings.strict
    found = search_step(run, knowledge, query, scope.targets(), file_ids=scope.file_ids,
                        top_k=s.rag_strict_max_results, min_score=s.rag_strict_min_similarity)
    items = found.items
    answers: dict[int, str] = {}  # the answering passage's sentence or row, by its position
    if items and s.rag_strict_term_check:
        question = read_question(query)
        judged = judge(question, judged_with_section(items), [i.text for i in items])
        second = (second_opinion(run, settings, question, items)
                  if not judged.answerable and judged.missing and s.rag_strict_model_judge else None)
        if second is not None:  # the model found the answer said in other words, and quoted it
            run.notice(notice("strict.model_judged", terms=("、" if any(HAN_RUN.search(t) for t in judged.missing)
                                                              else ", ").join(judged.missing)))
            items = [items[second.passage]] + [i for n, i in enumerate(items) if n != second.passage]
            answers[0] = second.quote
        elif not judged.answerable or judged.passage is None:
            run.notice(refusal_notice(judged))
            items = []
        else:
            if judged.unsaid:  # a long question's one plain word the passage does not use: said, never silent
                run.notice(notice("strict.unsaid", terms=judged.unsaid[0]))
            found_in = best_evidence(question, [i.text for i in items], judged.answering)
            first = items[found_in.passage if found_in else judged.passage]
            items = [first] + [i for i in items if i is not first]  # the answering passage first
            if found_in:
                answers[0] = found_in.text
    report_found(run, items)
    if not items:
        run.answer.text = no_hit_reply(s, run.answer.question)  # the hard guarantee: no model is called
        return
    run.answer.hit = True
    model = model_for(settings, run, injecting=True)
    uncovered = uncovered_text(s, run.answer.question)
    if quotes_only(model):
        numbered = number(items)
        extractive(run, model, query, numbered, uncovered,
                   evidence={numbered[k].n: text for k, text in answers.items()} or None)
        return
    items = fit(run, model, items, strict_messages(run.answer.question, [], uncovered))
    prompt = strict_messages(run.answer.question, items, uncovered)
    run.injected = items
    tools = STRICT_TOOLS if settings.answering.builtin_tools else None
    box = ToolBox(knowledge, scope.targets(), scope.file_ids, s.rag_strict_max_results, s.rag_strict_min_similarity,
                  next_n=len(items) + 1, allowed=list(STRICT_TOOLS), fixed_scope=True)
    # The model's text is held and checked before it is shown: a number or name no passage backs
    # is the model's own, and strict mode shows the passage's sentence (or the fixed reply) instead.
    text = generate(run, model, prompt.messages, tools, box, settings.answering.max_tool_rounds, hold=True)
    checked = check_answer(text, [judged_text(i) for i in items + box.cited], ignore=(uncovered,))
    if checked.supported:
        run.answer.text = text
        run.emit("text", text)
        run.cite(items + box.cited)
        return
    run.notice(notice("strict.unsupported", terms=("、" if any(HAN_RUN.search(t) for t in checked.unsupported)
                                                    else ", ").join(checked.unsupported)))
    if answers:  # the sentence judged to answer, quoted (the offline answerer, no other model call)
        extractive(run, ExtractiveAnswerer(), query, items, uncovered, evidence={items[0].n: answers[0]},
                   lead=unchecked_lead(run.answer.question))
        return
    run.answer.hit = False
    run.answer.text = no_hit_reply(s, run.answer.question)
    run.emit("text", run.answer.text)
