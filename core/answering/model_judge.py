"""Strict mode's second opinion on a word refusal: the chat model judges (opt-in).

The offline judgement (``answerable.py``) refuses when a passage does not mention a named thing of
the question in any dictionary's words. Most of its wrong refusals are a named word the document
says otherwise (hotel / accommodation, 套餐 / plan, 漏洞 / vulnerability); only a model reading the
passage can tell that from a near miss (interns where the handbook speaks of employees).

With ``strict.rag_strict_model_judge`` on and a chat model connected, such a refusal — passages
passed the threshold, the judge found a named thing missing — is put to the model once: which
passage states the answer to exactly what is asked, and in which words. Its reply counts only when
it quotes the passage word for word and the quote states the kind of value asked for; anything
else (no JSON, a paraphrase, a passage number out of range, "none") keeps the refusal. The answer
is then written and checked as any strict answer (``verify.py``). A model too eager to say yes lets
near misses in: that is why it is off by default.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass

from core.answering.answer_types import value_spans
from core.answering.reading import Question
from core.llm.base import ChatMessage, ChatModel, TextDelta

_SYSTEM = (
    "You decide whether passages from a knowledge base answer a question. A passage answers only if it "
    "states the answer for exactly what the question asks about: the same person, group, thing, product, "
    "plan, place and condition, possibly in other words or in another language. A passage about a related "
    "but different thing (employees when the question asks about interns, a car when it asks about a "
    "motorbike, another plan or product) does not answer. Reply with one JSON object and nothing else.")
_ASK = (
    "Question: {question}\n\nPassages:\n{passages}\n\n"
    'Reply {{"passage": N, "quote": "..."}} where N is the number of the passage that answers and quote is '
    "the shortest run of its words, copied exactly, that states the answer; or "
    '{{"passage": 0, "quote": ""}} when no passage answers exactly what is asked.')
_JSON = re.compile(r"\{.*\}", re.S)
_MIN_QUOTE = 4  # characters: a quote shorter than this names nothing checkable


@dataclass(frozen=True)
class ModelJudgement:
    passage: int  # index into the passages judged
    quote: str  # the passage's own words that answer


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().lower()


def ask_model(model: ChatModel, question: Question, passages: list[str]) -> ModelJudgement | None:
    """The passage the model says answers and its quote, when the quote is the passage's own words
    and states the kind of value asked for; None otherwise (the refusal stands)."""
    numbered = "\n\n".join(f"[{n}] {text}" for n, text in enumerate(passages, start=1))
    messages = [ChatMessage("system", _SYSTEM), ChatMessage("user", _ASK.format(question=question.text, passages=numbered))]
    reply = "".join(e.text for e in model.stream(messages, None) if isinstance(e, TextDelta) and e.text)
    return read_reply(reply, question, passages)


def read_reply(reply: str, question: Question, passages: list[str]) -> ModelJudgement | None:
    found = _JSON.search(reply)
    if not found:
        return None
    try:
        said = json.loads(found.group())
        number, quote = int(said.get("passage", 0)), str(said.get("quote", "")).strip()
    except (ValueError, TypeError, AttributeError):
        return None
    if not 1 <= number <= len(passages) or len(quote) < _MIN_QUOTE:
        return None
    if _flat(quote) not in _flat(passages[number - 1]):
        return None  # not the passage's words: the model's own, which strict mode never shows
    if question.wanted is not None and not value_spans(quote, question.wanted):
        return None  # the quote does not state what is asked for ("how many days" needs a duration)
    return ModelJudgement(number - 1, quote)
